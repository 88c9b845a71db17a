"""The engine counts its evaluations and keeps what the last one judged: `watch --act
--ndjson` prints it as its heartbeat (`"kind": "tick"`), so a reader can wait for "it looked
at this thread again past that moment" instead of sleeping through a window."""

from dataclasses import replace

from t3tui.policy.engine import Engine
from tests.policy.test_tree_guard import CHECKIN, at, quiet, row, unheard


def test_each_evaluation_is_counted_with_the_occurrences_a_policy_is_about() -> None:
    engine = Engine(CHECKIN, clock=lambda: at(0), emit=lambda _d: None)
    engine.start(at(0))
    engine.seed([row("quiet", "stuck", findings=(quiet("quiet"),)),
                 row("unheard", "idle", findings=(unheard("unheard"),))])
    assert (engine.looks, engine.looked) == (0, ())
    engine.tick(None, at(1), live=True, synchronized=True)  # type: ignore[arg-type]
    engine.tick(None, at(2), live=True, synchronized=True)  # type: ignore[arg-type]
    assert engine.looks == 2
    # no policy of this set is about provider-finished-unheard: not judged, not listed
    assert [(s.thread_id, s.finding.rule, s.first_seen) for s in engine.looked] == [
        ("quiet", "no-progress", at(1))]
    engine.switch.set(False, "SIGUSR1")
    engine.tick(None, at(3), live=True, synchronized=True)  # type: ignore[arg-type]
    assert (engine.looks, engine.looked) == (2, ())  # switched off: nothing judged


def test_rows_changed_says_when_a_finding_appeared_or_cleared_not_when_its_words_moved() -> None:
    """What `watch --act` evaluates again on at once (else once a second)."""
    engine = Engine(CHECKIN, clock=lambda: at(0), emit=lambda _d: None)
    assert engine.rows_changed({"quiet": row("quiet", "stuck", findings=(quiet("quiet"),))})
    older = replace(quiet("quiet"), reason="no progress for 5m")
    assert not engine.rows_changed({"quiet": row("quiet", "stuck", findings=(older,))})
    assert not engine.rows_changed({"other": row("other", "idle")})
    assert engine.rows_changed({"quiet": row("quiet", "stuck", findings=(
        older, unheard("quiet")))})
    assert engine.rows_changed({"quiet": row("quiet", "idle")})  # cleared
    assert engine.rows_changed({"quiet": row("quiet", "stuck", findings=(quiet("quiet"),)),
                                "gone": None}) and not engine.rows_changed({"gone": None})
