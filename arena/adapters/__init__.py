"""Adapters that put the game into other frameworks (each one an optional dependency)."""
