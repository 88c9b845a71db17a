"""Screens and modals of the supervisor app."""
