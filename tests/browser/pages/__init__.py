"""Fixture pages of the snapshot tests, and the tiny static server that serves them."""
