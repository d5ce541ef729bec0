"""Alembic migrations of the rulings store (:mod:`kiekai.judge.store`): one schema for SQLite
and PostgreSQL. :func:`kiekai.judge.store.migrate` runs them; there is no ``alembic.ini``
(the store builds Alembic's ``Config`` in code)."""
