"""Tournaments, ratings, storage and the ``pengyou`` command line."""
