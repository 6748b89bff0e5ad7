"""Kite's terminal UI (Textual): task form, live run view, confirmation modal."""
