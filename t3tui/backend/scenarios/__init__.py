"""Scenarios: JSON data files of provider instances and scripted steps (docs/BACKEND.md).

A scenario file has `name`, `description`, `params` (defaults for `${name}` placeholders, which
callers override, e.g. to shorten timings in tests), `providers` and `steps`. A string that is
exactly `"${x}"` becomes the parameter's value with its JSON type; inside longer strings the
value is formatted in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

STEP_ACTIONS = ("launch", "message", "settle", "unsettle", "respond", "interrupt", "waitIdle",
                "waitFor", "pauseMs")
_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


class ScenarioError(ValueError):
    """A scenario that cannot be loaded or run; the message says which and why."""


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str = ""
    providers: tuple[dict[str, Any], ...] = ()
    steps: tuple[dict[str, Any], ...] = ()
    params: dict[str, Any] = field(default_factory=dict)


def available() -> list[str]:
    """Names of the bundled scenarios."""
    root = resources.files(__package__)
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".json"))


def _substitute(value: Any, params: dict[str, Any], where: str) -> Any:
    if isinstance(value, dict):
        return {k: _substitute(v, params, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, params, where) for v in value]
    if not isinstance(value, str):
        return value

    def lookup(name: str) -> Any:
        if name not in params:
            raise ScenarioError(f"{where}: unknown parameter ${{{name}}}")
        return params[name]

    whole = _PLACEHOLDER.fullmatch(value)
    if whole:
        return lookup(whole.group(1))

    def text(match: re.Match[str]) -> str:
        found = lookup(match.group(1))
        return found if isinstance(found, str) else json.dumps(found)

    return _PLACEHOLDER.sub(text, value)


def parse_scenario(data: Any, overrides: dict[str, Any] | None = None,
                   where: str = "scenario") -> Scenario:
    """Validate a scenario document and apply parameter overrides."""
    if not isinstance(data, dict):
        raise ScenarioError(f"{where}: a scenario must be a JSON object")
    params = dict(data.get("params") or {})
    unknown = sorted(set(overrides or {}) - set(params))
    if unknown:
        raise ScenarioError(f"{where}: unknown parameter(s) {', '.join(unknown)}; "
                            f"known: {', '.join(sorted(params)) or 'none'}")
    params.update(overrides or {})
    body = _substitute({k: v for k, v in data.items() if k != "params"}, params, where)
    providers = body.get("providers") or []
    steps = body.get("steps") or []
    if not isinstance(providers, list) or not all(
            isinstance(p, dict) and isinstance(p.get("name"), str) for p in providers):
        raise ScenarioError(f"{where}: 'providers' must be a list of objects with a 'name'")
    if not isinstance(steps, list):
        raise ScenarioError(f"{where}: 'steps' must be a list")
    for index, step in enumerate(steps):
        actions = [a for a in STEP_ACTIONS if isinstance(step, dict) and a in step]
        if len(actions) != 1:
            raise ScenarioError(
                f"{where}: step {index + 1} needs exactly one of {', '.join(STEP_ACTIONS)}")
    return Scenario(name=str(body.get("name") or where), description=str(
        body.get("description") or ""), providers=tuple(providers), steps=tuple(steps),
        params=params)


def load_scenario(name_or_path: str | Path, overrides: dict[str, Any] | None = None) -> Scenario:
    """A bundled scenario by name, or a scenario JSON file by path."""
    text_name = str(name_or_path)
    path = Path(text_name)
    if text_name in available():
        source = resources.files(__package__).joinpath(f"{text_name}.json")
        raw, where = source.read_text(encoding="utf-8"), f"scenario {text_name}"
    elif path.suffix == ".json" or path.exists():
        try:
            raw, where = path.read_text(encoding="utf-8"), str(path)
        except OSError as exc:
            raise ScenarioError(f"cannot read scenario {path}: {exc.strerror or exc}") from None
    else:
        raise ScenarioError(f"unknown scenario {text_name!r}; bundled: {', '.join(available())}")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{where} is not valid JSON: {exc}") from None
    return parse_scenario(data, overrides, where)
