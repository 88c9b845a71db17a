"""Widgets of the supervisor app."""
