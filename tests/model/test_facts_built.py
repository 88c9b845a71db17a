"""Own facts are built without the dataclass's `__init__` (`facts._built`, for speed): each
holds exactly the dataclass's fields, and equals the facts `OwnFacts(...)` would build from
the same values, for every thread after every item of every fixture."""

from __future__ import annotations

from dataclasses import fields

import pytest

from t3tui.model import Supervisor
from t3tui.model.facts import OwnFacts
from tests.model.replay import feed
from tests.model.test_incremental import FIXTURES, _frames

NAMES = [f.name for f in fields(OwnFacts)]


@pytest.mark.parametrize("name", FIXTURES)
def test_own_facts_hold_exactly_the_dataclass_fields(name: str) -> None:
    sup = Supervisor()
    seen = 0
    for frame in _frames(name):
        feed(sup, [frame])
        ix = sup._ix
        for thread_id in ix.records:
            facts = ix.own(thread_id)
            assert sorted(vars(facts)) == sorted(NAMES), thread_id
            assert OwnFacts(**{n: getattr(facts, n) for n in NAMES}) == facts
            seen += 1
    assert seen > 0
