"""TUI test fixtures: no test may read the user's real config or environment overrides."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_config(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty HOME and XDG_CONFIG_HOME, and no T3TUI_*/T3CODE_* variables."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in ("T3TUI_CONFIG", "T3TUI_KEYS", "T3TUI_BELL", "T3TUI_TOAST", "T3TUI_THEME",
                 "T3TUI_CHECKIN_TIMEOUT", "T3TUI_URL", "T3CODE_URL", "T3TUI_TOKEN",
                 "T3CODE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return home
