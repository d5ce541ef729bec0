"""Kiek (Splotter): rules engine, players and bots."""
