"""`t3tui status` at 80 columns (issue 21, item 6): the DETAIL column keeps room to be read;
the ID column gives way first, cut in the middle as `find_thread` still accepts it."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from t3tui.headless.common import find_thread
from t3tui.headless.render import print_lines, report
from t3tui.model import SupervisorView
from t3tui.tui.screenshots import NOW
from t3tui.tui.sources.frames import FrameSource, load_frames


@pytest.fixture(autouse=True)
def no_columns_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)


def showcase() -> SupervisorView:
    source = FrameSource(load_frames("showcase"), label="showcase")
    source.apply_all()
    return source.supervisor.view(NOW)


def table(view: SupervisorView, columns: int) -> list[str]:
    buffer = io.StringIO()
    out = Console(file=buffer, width=columns, force_terminal=True, color_system=None,
                  highlight=False, emoji=False, soft_wrap=True)
    print_lines(out, report(out, view))
    lines = buffer.getvalue().splitlines()
    start = lines.index(next(x for x in lines if x.startswith("STATE")))
    return lines[start:start + 1 + len(view.rows)]


def test_status_at_80_columns_keeps_the_detail_readable_and_ids_usable() -> None:
    view = showcase()
    lines = table(view, 80)
    assert all(len(line) <= 80 for line in lines), lines
    head = lines[0]
    detail, ident = head.index("DETAIL"), head.index("ID")
    assert ident - detail - 2 >= 24, head  # DETAIL: at least 24 characters
    stuck = next(line for line in lines[1:] if "stuck?" in line)
    assert "provider session" in stuck, stuck  # the stuck row says why
    for line, row in zip(lines[1:], view.rows, strict=True):
        printed = line[ident:].strip()
        assert find_thread(view, printed).id == row.id, (printed, row.id)
