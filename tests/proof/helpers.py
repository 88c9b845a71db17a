"""Shared steps of the proof tests: the seed 004 flow on the reference backend, and a
supervisor view with the provider records read, over a real socket."""

from __future__ import annotations

import argparse
from datetime import timedelta
from pathlib import Path
from typing import Any

from t3tui.backend.testing import RunningBackend, wait_until
from t3tui.headless.common import now, supervised
from t3tui.headless.proof import apply_records
from t3tui.model import SupervisorView
from t3tui.proof.homes import ProofHomes
from t3tui.proof.records import RecordReader
from tests.backend.transport.commands import message, settle

PARENT = "thread-parent"


def child_of(backend: RunningBackend) -> str:
    [child] = [r.id for r in backend.engine.shell_snapshot().threads
               if r.lineage and r.lineage.parent_thread_id == PARENT]
    return child


def rollouts(home: Path) -> list[Path]:
    return sorted(home.glob("sessions/*/*/*/rollout-*.jsonl"))


def native_of(backend: RunningBackend, thread_id: str) -> str:
    state = backend.engine.projection(thread_id).to_wire()
    ref = state["providerThreads"][-1]["nativeThreadRef"]
    return ref if isinstance(ref, str) else ref["nativeId"]


def rollout_of(backend: RunningBackend, thread_id: str) -> Path:
    native = native_of(backend, thread_id)
    [path] = [p for p in rollouts(backend.data_dir / "codex-home") if native in p.name]
    return path


def record_lines(path: Path) -> list[dict[str, Any]]:
    import json
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def settle_and_send(backend: RunningBackend, text: str) -> str:
    """Settle the parent (forced by command), send its child `text`; the child's id."""
    child = child_of(backend)
    await backend.engine.dispatch(settle(PARENT))
    await backend.engine.dispatch(message(child, text))
    return child


async def wait_for_marker(backend: RunningBackend, thread_id: str, marker: str,
                          timeout: float = 15) -> dict[str, Any]:
    """The child's rollout line with event `marker` in its latest turn."""
    def found() -> dict[str, Any] | None:
        try:
            lines = record_lines(rollout_of(backend, thread_id))
        except ValueError:
            return None
        hits = [ln for ln in lines if ln["type"] == "event_msg" and ln["payload"]["type"] == marker]
        return hits[-1] if len(hits) >= 2 or (hits and marker == "task_started") else None

    return await wait_until(found, timeout=timeout, what=f"{marker} in the child's rollout")


async def view_with_records(backend: RunningBackend, homes: ProofHomes,
                            ahead_s: float = 0.0) -> tuple[SupervisorView, Any]:
    """Connect like `status` does, read the records, and view `ahead_s` seconds from now
    (so a negative case is checked past every dwell without waiting for it)."""
    args = argparse.Namespace(url=backend.url, token=backend.token, connect_timeout=15.0)
    reader = RecordReader(homes)
    async with supervised(args) as (_session, supervisor):
        await apply_records(supervisor, reader)
        view = supervisor.view(now() + timedelta(seconds=ahead_s))
        return view, supervisor
