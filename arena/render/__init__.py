"""What people look at, as text: standings tables and the replay viewer's page."""
