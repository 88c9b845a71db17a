"""Every frame fixture (recorded from the backend or built by the timeline) has the shapes of
T3's V2 contract, so the model, TUI and screenshot tests read what a real server sends."""

import json
from pathlib import Path

import pytest

from t3tui.protocol.contract import ShellStreamItem, ThreadStreamItem, violations
from tests.model.timeline import FRAMES

SHOWCASE = Path(__file__).resolve().parents[2] / "t3tui" / "tui" / "recorded"
FIXTURES = sorted(FRAMES.glob("*.json")) + sorted(SHOWCASE.glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_frames_pass_the_v2_contract(path: Path) -> None:
    data = json.loads(path.read_text())
    items = [f for key in ("recorded", "live", "fresh", "frames") for f in data.get(key, [])
             if "item" in f]
    assert items, f"{path.name} holds no stream items"
    problems = []
    for n, frame in enumerate(items):
        schema = ShellStreamItem if frame["stream"] == "shell" else ThreadStreamItem
        problems += [f"frame {n}: {p}" for p in violations(schema, frame["item"])]
    assert not problems, f"{path.name}:\n" + "\n".join(problems[:10])
