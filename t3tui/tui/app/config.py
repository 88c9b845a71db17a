"""The app's settings, with one override order: defaults < config file < environment < flags.

The file is TOML (default `$XDG_CONFIG_HOME/t3tui/config.toml`, else
`~/.config/t3tui/config.toml`; a missing default file is fine, a missing `--config` file is
an error):

    [keys]                 # binding id = key(s), comma-separated (see `?` in the app)
    settle = "S"
    [notifications]
    bell = false           # terminal bell on a real transition
    toast = true           # toast on a real transition
    on = ["stuck", "needs-input", "finished", "undelivered", "orphaned"]
    [checkin]
    timeout = 120          # seconds before an unanswered check-in is called unanswered
    text = "Reply exactly PONG"
    expect = "PONG"
    [ui]
    theme = "textual-dark"
    [[policy]]             # see t3tui.policy (README: Unattended supervision)
    when = "no-progress"
    after = "10m"
    do = "checkin"
    [environments.devbox]  # see t3tui.client.environments
    url = "http://devbox:3773"
    token_command = "pass show t3/devbox"

Environment: `T3TUI_CONFIG` (file), `T3TUI_KEYS` ("settle=S,checkin=c"), `T3TUI_BELL`,
`T3TUI_TOAST` (1/0), `T3TUI_THEME`, `T3TUI_CHECKIN_TIMEOUT`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from t3tui.tui.app.keys import ACTIONS, BY_ID

# Keys bound outside the action table (see the help screen): an action there would never run.
FIXED_KEYS = {"j": "the tree", "k": "the tree", "up": "the tree", "down": "the tree",
              "space": "the tree", "escape": "dialogs and the filter",
              "ctrl+p": "the command palette"}
NOTIFY_EVENTS = frozenset({"stuck", "needs-input", "finished", "undelivered", "orphaned"})
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ConfigError(Exception):
    """The config file, environment or flags hold something unusable; the message says what."""


@dataclass(frozen=True)
class TuiConfig:
    """Everything the app reads from config. Build it with `load_config`."""

    keys: Mapping[str, str] = field(default_factory=dict)
    bell: bool = True
    toast: bool = True
    notify_on: frozenset[str] = NOTIFY_EVENTS
    checkin_timeout_s: float = 120.0
    checkin_text: str = "Reply exactly PONG"
    checkin_expect: str = "PONG"
    theme: str = "textual-dark"
    # How long an action waits for the event stream to confirm its effect.
    confirm_timeout_s: float = 20.0
    source_path: Path | None = None


def default_path(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "t3tui" / "config.toml"


def _bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().casefold()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"{where}: expected true or false, got {value!r}")


def _seconds(value: Any, where: str) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: expected a number of seconds, got {value!r}") from None
    if not 0 < seconds <= 24 * 3600:
        raise ConfigError(f"{where}: must be between 0 and 86400 seconds, got {value!r}")
    return seconds


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _keys(mapping: Mapping[str, Any], where: str) -> dict[str, str]:
    out = {}
    for binding_id, keys in mapping.items():
        if binding_id not in BY_ID:
            known = ", ".join(sorted(BY_ID))
            raise ConfigError(f"{where}: unknown action {binding_id!r} (known: {known})")
        out[binding_id] = _text(keys, f"{where}.{binding_id}").replace(" ", "")
    return out


def parse_keys(text: str, where: str) -> dict[str, str]:
    """`settle=S, checkin=c` -> {"settle": "S", "checkin": "c"}; keys joined with `+`/`|`."""
    pairs = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, keys = part.partition("=")
        if not sep:
            raise ConfigError(f"{where}: expected ID=KEY, got {part.strip()!r}")
        pairs[name.strip()] = keys.strip().replace("|", ",")
    return _keys(pairs, where)


def _check_table(doc: Mapping[str, Any], name: str, allowed: set[str], path: Path) -> dict[str, Any]:
    table = doc.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{name}] must be a table")
    unknown = set(table) - allowed if allowed else set()
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) in [{name}]: {', '.join(sorted(unknown))} "
            f"(known: {', '.join(sorted(allowed))})"
        )
    return table


def _from_file(cfg: TuiConfig, path: Path) -> TuiConfig:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from None
    # [environments.NAME] is read by t3tui.client.environments (the headless commands too)
    # [[policy]] and [policies] are checked whole by t3tui.policy when policies are used
    sections = {"keys", "notifications", "checkin", "ui", "environments", "policy", "policies"}
    unknown = set(doc) - sections
    if unknown:
        raise ConfigError(
            f"{path}: unknown section(s) {', '.join(sorted(unknown))} "
            f"(known: {', '.join(sorted(sections))})"
        )
    keys = _keys(_check_table(doc, "keys", set(), path), f"{path} [keys]")
    notes = _check_table(doc, "notifications", {"bell", "toast", "on"}, path)
    checkin = _check_table(doc, "checkin", {"timeout", "text", "expect"}, path)
    ui = _check_table(doc, "ui", {"theme"}, path)
    changes: dict[str, Any] = {"keys": {**cfg.keys, **keys}, "source_path": path}
    if "bell" in notes:
        changes["bell"] = _bool(notes["bell"], f"{path} [notifications] bell")
    if "toast" in notes:
        changes["toast"] = _bool(notes["toast"], f"{path} [notifications] toast")
    if "on" in notes:
        events = notes["on"]
        if not isinstance(events, list) or not set(events) <= NOTIFY_EVENTS:
            raise ConfigError(
                f"{path} [notifications] on: expected a list of {sorted(NOTIFY_EVENTS)}, got {events!r}"
            )
        changes["notify_on"] = frozenset(events)
    if "timeout" in checkin:
        changes["checkin_timeout_s"] = _seconds(checkin["timeout"], f"{path} [checkin] timeout")
    if "text" in checkin:
        changes["checkin_text"] = _text(checkin["text"], f"{path} [checkin] text")
    if "expect" in checkin:
        changes["checkin_expect"] = _text(checkin["expect"], f"{path} [checkin] expect")
    if "theme" in ui:
        changes["theme"] = _text(ui["theme"], f"{path} [ui] theme")
    return replace(cfg, **changes)


def _from_env(cfg: TuiConfig, env: Mapping[str, str]) -> TuiConfig:
    changes: dict[str, Any] = {}
    if env.get("T3TUI_KEYS"):
        changes["keys"] = {**cfg.keys, **parse_keys(env["T3TUI_KEYS"], "T3TUI_KEYS")}
    if env.get("T3TUI_BELL"):
        changes["bell"] = _bool(env["T3TUI_BELL"], "T3TUI_BELL")
    if env.get("T3TUI_TOAST"):
        changes["toast"] = _bool(env["T3TUI_TOAST"], "T3TUI_TOAST")
    if env.get("T3TUI_THEME"):
        changes["theme"] = env["T3TUI_THEME"]
    if env.get("T3TUI_CHECKIN_TIMEOUT"):
        changes["checkin_timeout_s"] = _seconds(env["T3TUI_CHECKIN_TIMEOUT"], "T3TUI_CHECKIN_TIMEOUT")
    return replace(cfg, **changes)


def _from_flags(cfg: TuiConfig, flags: Mapping[str, Any]) -> TuiConfig:
    changes: dict[str, Any] = {}
    keys = flags.get("keys") or []
    if keys:
        changes["keys"] = {**cfg.keys, **parse_keys(",".join(keys), "--key")}
    if flags.get("bell") is not None:
        changes["bell"] = bool(flags["bell"])
    if flags.get("theme"):
        changes["theme"] = flags["theme"]
    if flags.get("checkin_timeout") is not None:
        changes["checkin_timeout_s"] = _seconds(flags["checkin_timeout"], "--checkin-timeout")
    return replace(cfg, **changes)


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> TuiConfig:
    """Defaults, then the file (`path`, else `T3TUI_CONFIG`, else the default location), then
    the environment, then flags. Raises `ConfigError` with a one-line reason."""
    values = os.environ if env is None else env
    cfg = TuiConfig()
    explicit = path or values.get("T3TUI_CONFIG")
    file = Path(explicit).expanduser() if explicit else default_path(values)
    if explicit and not file.is_file():
        raise ConfigError(f"config file not found: {file}")
    if file.is_file():
        cfg = _from_file(cfg, file)
    cfg = _from_env(cfg, values)
    cfg = _from_flags(cfg, flags or {})
    _check_clashes(cfg.keys)
    return cfg


def _check_clashes(keys: Mapping[str, str]) -> None:
    """One key, one action: a clash silently loses one of them (and its footer entry)."""
    owner: dict[str, str] = {}
    for spec in ACTIONS:
        for key in keys.get(spec.id, spec.key).split(","):
            if key in FIXED_KEYS:
                raise ConfigError(f"keys: {key!r} is taken by {FIXED_KEYS[key]} ({spec.id})")
            if key in owner:
                raise ConfigError(f"keys: {key!r} would run both {owner[key]} and {spec.id}")
            owner[key] = spec.id
