"""Bots for Zhao Pengyou behind one protocol (they see a player's view, never the state)."""
