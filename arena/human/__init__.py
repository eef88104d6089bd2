"""A person at the table: a seat played from the browser or the terminal."""
