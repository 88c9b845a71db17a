"""The stream's `synchronized` only lifts the `stale` overlay: rows are not derived again.

With 10,000 threads, the shell's `synchronized` after its snapshot made every row derive
afresh, rules and all: the first tree was derived twice (issue 25, first tree). The rows must
still equal a fresh derivation's, overlay included.
"""

from __future__ import annotations

from t3tui.model import Supervisor
from t3tui.model.assemble import Assembler
from tests.model.factory import at
from tests.model.replay import feed
from tests.model.test_incremental import FIXTURES, _frames


def _split(name: str) -> tuple[list[dict], dict]:
    """The fixture's frames without the shell's `synchronized` (every row stays stale), and
    that frame."""
    frames = _frames(name)
    i = next(i for i, fr in enumerate(frames)
             if fr["stream"] == "shell" and fr["item"].get("kind") == "synchronized")
    return frames[:i] + frames[i + 1:], frames[i]


def _counting(monkeypatch) -> list[str]:
    derived: list[str] = []
    real = Assembler.derived

    def derived_(self, thread_id, *args, **kwargs):
        derived.append(thread_id)
        return real(self, thread_id, *args, **kwargs)

    monkeypatch.setattr(Assembler, "derived", derived_)
    return derived


def test_the_shell_synchronized_lifts_stale_without_deriving_rows(monkeypatch) -> None:
    before, sync = _split("approval")
    sup, ref = Supervisor(), Supervisor(incremental=False)
    now = at(0)
    for s in (sup, ref):
        feed(s, before)
    first = sup.changed_rows(now)
    assert first and all("stale" in r.overlays for r in first.values() if r is not None)
    derived = _counting(monkeypatch)
    for s in (sup, ref):
        feed(s, [sync])
    changed = sup.changed_rows(now)
    assert derived == [], "rows were derived again for a change of overlay"
    assert set(changed) == set(first)
    assert sup.view(now).rows == ref.view(now).rows
    assert all("stale" not in r.overlays for r in sup.view(now).rows)


def test_rows_after_a_resync_equal_fresh_ones_on_every_fixture() -> None:
    for name in FIXTURES:
        before, sync = _split(name)
        sup, ref = Supervisor(), Supervisor(incremental=False)
        now = at(0)
        for s in (sup, ref):
            feed(s, before)
        sup.changed_rows(now)
        for s in (sup, ref):
            feed(s, [sync])
        assert sup.view(now).rows == ref.view(now).rows, name
        for s in (sup, ref):
            s.mark_stale()  # the connection dropped: every row stale again
        assert sup.view(now).rows == ref.view(now).rows, name
        for s in (sup, ref):
            feed(s, [sync])
        assert sup.view(now).rows == ref.view(now).rows, name
