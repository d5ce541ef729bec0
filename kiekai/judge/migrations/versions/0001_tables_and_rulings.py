"""Tables, their rulings and the store's markers.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``kiekai_tables``, ``kiekai_rulings`` and ``kiekai_meta``."""
    op.create_table(
        "kiekai_tables",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("key_hash", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "kiekai_rulings",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column(
            "table_name",
            sa.String(64),
            sa.ForeignKey("kiekai_tables.name", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("secret_key", sa.String(400), nullable=False),
        sa.Column("guess_key", sa.String(400), nullable=False),
        sa.Column("level", sa.String(8), nullable=False),
        sa.Column("secret", sa.String(400), nullable=False),
        sa.Column("guess", sa.String(400), nullable=False),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("ruled_by", sa.String(80), nullable=True),
        sa.Column("ruled_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint(
            "table_name", "secret_key", "guess_key", "level", name="uq_kiekai_rulings_key"
        ),
    )
    op.create_index("ix_kiekai_rulings_table_id", "kiekai_rulings", ["table_name", "id"])
    op.create_table(
        "kiekai_meta",
        sa.Column("key", sa.String(400), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("kiekai_meta")
    op.drop_index("ix_kiekai_rulings_table_id", table_name="kiekai_rulings")
    op.drop_table("kiekai_rulings")
    op.drop_table("kiekai_tables")
