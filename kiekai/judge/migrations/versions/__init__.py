"""The store's schema versions, oldest first (Alembic revision files)."""
