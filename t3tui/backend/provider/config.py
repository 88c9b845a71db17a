"""Configuration of one scripted provider instance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from t3tui.backend.provider.faults import (
    INTERRUPT_NEVER_LANDS,
    PROVIDER_RUNS_ON_AFTER_INTERRUPT,
    check_faults,
)

ToolDispatch = Literal["parallel", "serial"]
TOOL_DISPATCH_POLICIES: tuple[str, ...] = ("parallel", "serial")


@dataclass(frozen=True)
class ProviderInstanceConfig:
    """One provider instance: its name, driver, tool dispatch policy and faults.

    `tool_dispatch="serial"` makes the agent harness send a block's tool calls one at a time, each
    only after the previous returned (seed 000); `parallel` sends them all at once.
    `models` lists the advertised models; empty means any model is accepted.
    """

    name: str = "codex"
    driver: str = "scripted"
    tool_dispatch: ToolDispatch = "parallel"
    faults: frozenset[str] = field(default_factory=frozenset)
    model: str = "scripted-1"
    models: tuple[str, ...] = ()
    supports_active_steering: bool = True
    # how long the provider takes to honour a turn interrupt (a slow but healthy stop)
    interrupt_delay_ms: int = 0
    # the orchestration ends an interrupted run at once; the provider turn follows when it stops
    end_run_on_interrupt: bool = False
    # the agent client's own ceiling on one MCP tool call (None: none): a delegate_task wait that
    # outlives it dies with "fetch failed" and no taskId, and the agent delegates again (#11168)
    tool_timeout_ms: int | None = None
    # what a woken agent does once it has read its tasks' results (instructions, as in a
    # message; None: nothing more): "Hang" is an orchestrator that goes on working on them
    wake_reaction: str | None = None

    def __post_init__(self) -> None:
        if self.tool_dispatch not in TOOL_DISPATCH_POLICIES:
            raise ValueError(
                f"provider {self.name!r}: tool dispatch must be 'parallel' or 'serial', "
                f"not {self.tool_dispatch!r}"
            )
        object.__setattr__(self, "faults", check_faults(self.faults))
        for name in ("interrupt_delay_ms", "tool_timeout_ms"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 0):
                raise ValueError(f"provider {self.name!r}: {name} must be a non-negative integer")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProviderInstanceConfig:
        """Build from a scenario's `providers[]` entry (camelCase keys)."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError("a provider entry needs a string 'name'")
        return cls(
            name=data["name"],
            driver=str(data.get("driver", "scripted")),
            tool_dispatch=data.get("toolDispatch", "parallel"),
            faults=frozenset(data.get("faults", [])),
            model=str(data.get("model", "scripted-1")),
            models=tuple(data.get("models", [])),
            supports_active_steering=bool(data.get("supportsActiveSteering", True)),
            interrupt_delay_ms=data.get("interruptDelayMs", 0),
            end_run_on_interrupt=bool(data.get("endRunOnInterrupt", False)),
            tool_timeout_ms=data.get("toolTimeoutMs"),
            wake_reaction=data.get("wakeReaction"),
        )

    @property
    def interrupt_ignored(self) -> bool:
        """The provider never honours an interrupt (a fault)."""
        return bool({INTERRUPT_NEVER_LANDS, PROVIDER_RUNS_ON_AFTER_INTERRUPT} & self.faults)

    @property
    def ends_run_first(self) -> bool:
        """run.interrupt ends the run before the provider confirms the stop."""
        return self.end_run_on_interrupt or PROVIDER_RUNS_ON_AFTER_INTERRUPT in self.faults

    def accepts_model(self, model: str) -> bool:
        return not self.models or model in self.models or model == self.model
