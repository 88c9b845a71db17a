"""The facts of a thread known only by its shell row (`shellfacts.shell_only_facts`, what the
index builds for every thread with no stream held) equal `own_facts` with no projection: on
every shell row of every fixture after every item, and on generated rows (every key the
facts read, absent, null, empty, of the wrong type, or well formed)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from t3tui.model import Supervisor
from t3tui.model.factpatch import SHELL_READ
from t3tui.model.facts import OwnFacts, own_facts
from t3tui.model.shellfacts import shell_only_facts
from tests.model.replay import feed
from tests.model.test_incremental import FIXTURES, _frames

NAMES = sorted(f.name for f in fields(OwnFacts))


def _same(thread_id: str, row: dict[str, Any], location: str) -> None:
    fast = shell_only_facts(thread_id, row, location)
    full = own_facts(thread_id, row, location, None)
    assert sorted(vars(fast)) == NAMES
    assert vars(fast) == vars(full), thread_id


@pytest.mark.parametrize("name", FIXTURES)
def test_every_fixture_shell_row_gives_the_facts_own_facts_gives(name: str) -> None:
    sup = Supervisor()
    seen = 0
    for frame in _frames(name):
        feed(sup, [frame])
        for thread_id, rec in sup._ix.records.items():
            if rec.shell:
                _same(thread_id, rec.shell, rec.location)
                seen += 1
    assert seen > 0


_STAMP = st.sampled_from(["2026-10-04T12:00:00.000Z", "2026-10-04T12:00:00Z",
                          "2026-10-04T12:00:00+02:00", "2026-10-04T12:00:00", "yesterday"])
_ANY = st.one_of(st.none(), st.just(""), st.text(max_size=8), st.integers(), st.booleans(),
                 _STAMP, st.just([]), st.just({}))
_ID = st.one_of(st.none(), st.just(""), st.text(min_size=1, max_size=6), st.integers())
_SHAPED = {
    "lineage": st.fixed_dictionaries({}, optional={
        "parentThreadId": _ID,
        "relationshipToParent": st.sampled_from(["subagent", "fork", None, 3])}),
    "modelSelection": st.fixed_dictionaries({}, optional={"instanceId": _ID, "model": _ID}),
    "pendingRuntimeRequest": st.fixed_dictionaries({}, optional={
        "id": _ID, "kind": _ID, "createdAt": _STAMP}),
    "latestVisibleMessage": st.fixed_dictionaries({}, optional={
        "text": st.one_of(st.text(max_size=30), st.integers(), st.none())}),
    "pendingBackgroundTasks": st.lists(st.one_of(st.just({}), st.integers(), st.none()),
                                       max_size=3),
    "settledOverride": st.sampled_from(["settled", "unsettled", None, 1]),
}


@st.composite
def _rows(draw: st.DrawFn) -> dict[str, Any]:
    row: dict[str, Any] = {"id": "t"}
    for key in sorted(SHELL_READ):
        if draw(st.booleans(), label=f"has {key}"):
            shaped = _SHAPED.get(key)
            row[key] = draw(st.one_of(shaped, _ANY) if shaped is not None else
                            st.one_of(_STAMP, _ANY), label=key)
    return row


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(row=_rows(), location=st.sampled_from(["active", "archive"]))
def test_any_shell_row_gives_the_facts_own_facts_gives(row: dict[str, Any],
                                                        location: str) -> None:
    _same("t", row, location)
