"""Alembic's environment for the rulings store: runs the migrations on the connection that
:func:`kiekai.judge.store.migrate` hands in (``config.attributes["connection"]``), inside its
transaction (which holds the store's migration lock)."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only kiekai.judge.store.migrate runs these
    raise RuntimeError(
        "the store's migrations run through kiekai.judge.store.migrate(engine), not the "
        "alembic command line"
    )
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
