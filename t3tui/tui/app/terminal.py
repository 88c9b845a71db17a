"""The terminal window title ("t3tui · 3 running · 1 stuck"), visible from another tab.

Textual has no public API for the window title. Like `App.bell()` and
`App.copy_to_clipboard()`, this writes an escape sequence through the app's driver, whose
writer thread serializes it with the screen output; headless apps (tests) write nothing.
"""

from __future__ import annotations

from textual.app import App

from t3tui.model.wiretext import display_text


def _clean(text: str) -> str:
    # Agent text ends up in titles: never let it carry control characters into the terminal.
    return display_text(text, one_line=True)[:200]


def set_terminal_title(app: App[object], title: str) -> bool:
    """OSC 2; True when written."""
    driver = getattr(app, "_driver", None)
    if driver is None or app.is_headless:
        return False
    driver.write(f"\x1b]2;{_clean(title)}\x07")
    return True
