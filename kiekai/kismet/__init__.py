"""Kismet (1997): rules data, the engine (base game and variant), reflex bots and timed tables."""
