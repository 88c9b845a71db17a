"""The main screen as the terminal shows it: every layer composited (toasts included)."""

from __future__ import annotations

from textual.app import App


def screen_lines(app: App[object]) -> list[str]:
    """One string per terminal row, as painted now."""
    return [strip.text for strip in app.screen._compositor.render_strips()]
