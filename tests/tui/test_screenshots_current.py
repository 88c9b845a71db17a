"""The README's screenshots show the app as it is: each `screenshots/NAME.svg` draws, cell for
cell (character, colours, weight), what its snapshot test draws today. The snapshot tests
(`test_snapshots.py`) hold the scenes to the code; this holds the committed screenshots to
the snapshots, by reading both files (no app run, so it costs nothing next to generating them
again). The two SVGs cannot be compared byte for byte: the snapshot plugin names its style
classes differently and Rich splits a line's text into runs differently from one export to
the next, which draws the same pixels. `make snapshots` writes both."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.cells import cell_len

from t3tui.tui.screenshots import BY_NAME

ROOT = Path(__file__).parents[2]
SNAPSHOTS = Path(__file__).parent / "__snapshots__" / "test_snapshots"
SVG = "{http://www.w3.org/2000/svg}"
# scene -> the snapshot test that draws it (test_snapshots.py)
SNAPSHOT_OF = {
    "tree": "test_tree_in_every_state",
    "detail": "test_detail_of_a_stuck_child",
    "transcript": "test_transcript_names_delegated_tasks",
    "needs_input": "test_needs_input_with_brackets_verbatim",
    "timeline": "test_timeline_of_serialized_waits",
    "settle_confirm": "test_settle_confirmation_warns_about_shared_session",
    "reconnect_banner": "test_reconnect_banner",
    "help": "test_help_screen",
    "narrow": "test_80x24[narrow]",
    "narrow_tree": "test_80x24[narrow_tree]",
    "narrow_transcript": "test_80x24[narrow_transcript]",
    "toasts": "test_a_burst_of_toasts[toasts]",
    "narrow_toasts": "test_a_burst_of_toasts[narrow_toasts]",
    "environments": "test_two_environments",
    "replay": "test_replay_bar_on_a_recording",
    "report": "test_triage_report_in_the_app",
}

Cell = tuple[str, float, int]  # (what, line's y, column)
CELL_WIDTH = 12.2  # Rich's SVG export: 0.61 of its 20 px font


def drawn(svg: Path) -> dict[Cell, str]:
    """Every cell of the terminal in `svg`: its background, and its character with style."""
    source = svg.read_text(encoding="utf-8")
    styles = dict(re.findall(r"\.terminal-(?:\d+-)?(r\d+) \{ ([^}]*) \}", source))
    cells: dict[Cell, str] = {}
    for node in ET.fromstring(source).iter():
        if node.tag == f"{SVG}rect" and node.get("shape-rendering") == "crispEdges":
            x, y = float(node.get("x", 0)), float(node.get("y", 0))
            for i in range(round(float(node.get("width", 0)) / CELL_WIDTH)):
                cells["bg", y, round(x / CELL_WIDTH) + i] = node.get("fill", "")
        elif node.tag == f"{SVG}text" and node.get("textLength") is not None:
            style = styles.get(node.get("class", "").rpartition("-")[2], "")
            column, y = round(float(node.get("x", 0)) / CELL_WIDTH), float(node.get("y", 0))
            for char in node.text or "":
                if not char.isspace():  # a blank draws nothing: its background is the rect
                    cells["fg", y, column] = f"{char} {style}"
                column += cell_len(char)
    return cells


def test_every_scene_has_its_snapshot() -> None:
    assert set(SNAPSHOT_OF) == set(BY_NAME)


@pytest.mark.parametrize("name", sorted(SNAPSHOT_OF))
def test_the_committed_screenshot_draws_what_its_snapshot_draws(name: str) -> None:
    screenshot = drawn(ROOT / "screenshots" / f"{name}.svg")
    snapshot = drawn(SNAPSHOTS / f"{SNAPSHOT_OF[name]}.svg")
    assert screenshot, name
    differ = sorted(cell for cell in screenshot.keys() | snapshot.keys()
                    if screenshot.get(cell) != snapshot.get(cell))
    assert not differ, (f"screenshots/{name}.svg is not what the app draws now: run `make "
                        f"snapshots`; first cells that differ: "
                        f"{[(c, screenshot.get(c), snapshot.get(c)) for c in differ[:5]]}")
