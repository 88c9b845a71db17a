"""Decode only what the model reads: the feed checks an item's envelope and hands the model
the object that was on the wire; typed items are built on demand (the TUI's transcripts).

The model must reach exactly the state it reaches from fully decoded typed items.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from t3tui.client.feed import SHELL, _decode
from t3tui.model import Supervisor, status_document
from t3tui.model.wire import as_wire
from t3tui.protocol import decode_shell_item, decode_thread_item
from t3tui.protocol.stream import ThreadUpdated
from tests.model.timeline import FRAMES

ROW = {
    "id": "t1", "projectId": "p", "title": "first", "status": "idle",
    # no milliseconds: a re-encoded item would say `00:00:00.000Z`
    "createdAt": "2026-10-04T12:00:00Z", "updatedAt": "2026-10-04T12:00:00Z",
}


def shell_update(title: str, sequence: int = 5) -> dict[str, Any]:
    return {"kind": "thread.updated", "sequence": sequence, "location": "active",
            "thread": {**ROW, "title": title}}


def test_the_model_reads_the_object_on_the_wire_not_a_re_encoding() -> None:
    raw = shell_update("first")
    item = _decode(raw, SHELL)
    assert item is raw  # no typed model built, nothing copied
    assert as_wire(item, "shell item") == raw  # the wire's own timestamp spelling
    typed = decode_shell_item(item)  # on demand, for whoever wants it
    assert isinstance(typed, ThreadUpdated) and typed.thread.title == "first"


def test_a_typed_item_still_works_for_the_model() -> None:
    item = decode_shell_item(shell_update("first")).model_copy(update={"sequence": 9})
    assert as_wire(item, "shell item")["sequence"] == 9
    sup = Supervisor()
    sup.apply_shell(item)
    assert sup.cursor_shell == 9


@pytest.mark.parametrize("raw", [
    {"kind": "thread.updated", "sequence": "7"}, {"kind": "event", "sequence": True},
    {"sequence": 3}, ["kind"], "snapshot", None,
])
def test_a_malformed_envelope_is_still_skipped(raw: Any) -> None:
    assert _decode(raw, SHELL) is None


def status_after(frames: list[dict[str, Any]], decode_once: bool, now: datetime) -> dict:
    sup = Supervisor()
    for frame in frames:
        if "mark" in frame:
            continue
        if frame["stream"] == "shell":
            raw, decoder = frame["item"], decode_shell_item
        else:
            raw, decoder = frame["item"], decode_thread_item
        item = _decode(raw, "test") if decode_once else decoder(raw)
        if frame["stream"] == "shell":
            sup.apply_shell(item)
        else:
            sup.apply_thread(frame["threadId"], item)
    return status_document(sup.view(now))


@pytest.mark.parametrize(
    "name", ["recorded_parallel_waits", "recorded_serial_waits", "recorded_settle_fault"]
)
def test_recorded_streams_give_the_same_status_either_way(name: str) -> None:
    frames = json.loads((FRAMES / f"{name}.json").read_text())["recorded"]
    end = max(datetime.fromisoformat(f["at"]) for f in frames if "mark" in f)
    decoded_once = status_after(frames, True, end)
    assert decoded_once["threads"]  # the fixture is not empty
    assert decoded_once == status_after(frames, False, end)
