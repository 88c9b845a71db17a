"""Engine configuration: data dir, provider instances, projects, clock and timing knobs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from t3tui.backend.provider.config import ProviderInstanceConfig
from t3tui.backend.provider.faults import check_faults

DEFAULT_INSTANCE = "codex"
DEFAULT_PROJECT_ID = "project-1"
# delegate_task's wait budget: default 10 min, clamped to [1 ms, 60 min] (delegation.md §3.1)
DEFAULT_WAIT_TIMEOUT_MS = 600_000
MIN_WAIT_TIMEOUT_MS = 1
MAX_WAIT_TIMEOUT_MS = 3_600_000


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class EngineConfig:
    """How the engine runs.

    - `data_dir`: where the provider logs and the agents' workspace live (default: the store's
      directory).
    - `providers`: provider instances; none means one parallel instance named `codex`.
    - `dispatch`: tool dispatch policy for instances that do not set one (scenario entries
      without `toolDispatch`, and the default instance).
    - `faults`: named faults turned on for every instance, in addition to their own.
    - `drain_seconds`: how long a run stays `waiting` after the provider said done.
    """

    data_dir: Path | None = None
    providers: tuple[ProviderInstanceConfig, ...] = ()
    dispatch: str | None = None
    faults: tuple[str, ...] | frozenset[str] = ()
    projects: tuple[dict[str, Any], ...] = ()
    clock: Callable[[], datetime] = utc_now
    drain_seconds: float = 0.02
    kill_grace_seconds: float = 2.0
    workspace: Path | None = None
    # where the scripted agents write their own session records (Codex rollouts, Claude
    # transcripts); default <data_dir>/codex-home and <data_dir>/claude-home
    codex_home: Path | None = None
    claude_home: Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "faults", check_faults(self.faults))
        if self.dispatch not in (None, "parallel", "serial"):
            raise ValueError(f"dispatch must be 'parallel' or 'serial', not {self.dispatch!r}")

    def provider_configs(self) -> list[ProviderInstanceConfig]:
        """The configured instances with the global faults (and default dispatch) applied."""
        if not self.providers:
            return [
                ProviderInstanceConfig(
                    name=DEFAULT_INSTANCE,
                    tool_dispatch=self.dispatch or "parallel",  # type: ignore[arg-type]
                    faults=frozenset(self.faults),
                )
            ]
        return [replace(p, faults=p.faults | frozenset(self.faults)) for p in self.providers]

    def provider_from_entry(self, entry: dict[str, Any]) -> ProviderInstanceConfig:
        """A scenario's provider entry, with this config's defaults and faults applied."""
        merged = dict(entry)
        merged.setdefault("toolDispatch", self.dispatch or "parallel")
        merged["faults"] = sorted(set(entry.get("faults", [])) | set(self.faults))
        return ProviderInstanceConfig.from_json(merged)

    def project_rows(self, workspace: Path, now: str) -> list[dict[str, Any]]:
        rows: Iterable[dict[str, Any]] = self.projects or (
            {"id": DEFAULT_PROJECT_ID, "title": "Reference workspace"},
        )
        return [
            {
                "id": p["id"],
                "title": p.get("title", p["id"]),
                "workspaceRoot": p.get("workspaceRoot", str(workspace)),
                "defaultModelSelection": p.get("defaultModelSelection"),
                "scripts": [],
                "createdAt": now,
                "updatedAt": now,
            }
            for p in rows
        ]
