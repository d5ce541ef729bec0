"""Typer command modules; each exposes ``register(app)`` (see :mod:`kiekai.cli`)."""
