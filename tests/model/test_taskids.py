"""Task id decoding (delegation.md §3.4) and what counts as a claim in agent text."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from t3tui.model import taskids
from t3tui.model.taskids import claimed_children, client_request_id, mentions, task_id_for_child

DOC_TASK = "node:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Areview-1"
DOC_CHILD = "thread:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Areview-1"


def test_client_request_id_from_the_documented_ids():
    assert client_request_id(DOC_TASK) == "review-1"
    assert client_request_id(DOC_CHILD) == "review-1"
    assert task_id_for_child(DOC_CHILD) == DOC_TASK


@pytest.mark.parametrize("value", [None, "", "thread-1", "node:delegated-task:command%3Amcp%3Asess-1%3Aother"])
def test_ids_without_a_client_request_id(value):
    assert client_request_id(value) is None


def test_mentions_of_ids_and_client_request_ids():
    text = f"Child {DOC_CHILD} runs; also clientRequestId: `probe-b`. Done."
    assert mentions(text) == {("task", DOC_TASK), ("client_request", "probe-b")}


@pytest.mark.parametrize(("text", "claim"), [
    ("Started 2 children: probe-a, probe-b.", (2, ("probe-a", "probe-b"))),
    ("I launched three reviewers: a, b and c", (3, ("a", "b", "c"))),
    ("Both are running; started two subagents in parallel.", (2, ())),
    ("Started 1 child: probe-a.", (1, ("probe-a",))),
    ("The tests ran 3 times and passed.", None),
    ("No children yet.", None),
])
def test_claimed_children(text, claim):
    assert claimed_children(text) == claim


# What the claim and mention readers must find, as the plain regexes find it (the readers
# try the regexes only where the words they start with stand: same answer, less work).
_WORDS = ["started", "Started", "STARTED", "restarted", "kicked off", "Kicked Off", "running",
          "rerunning", "launched", "spawned", "delegated", "dispatched", "the", "2", "3", "two",
          "Both", "new", "children", "child", "sub-agents", "tasks", "workers", "reviewers",
          ":", ",", "and", ".", "\n", " ", "  ", "probe-a", "clientRequestId", "client_request_id",
          "CLIENT-REQUEST-ID", "=", "`x-1`", "node:delegated-task:a%3Ab", "thread:delegated-task:c",
          "\u017ftarted", "\u212aicked off", "İ", "é", "日本"]


def _reference_claim(text: str) -> tuple[int, tuple[str, ...]] | None:
    match = taskids._CLAIM_RE.search(text)
    if match is None:
        return None
    with pytest.MonkeyPatch.context() as mp:  # the reader's own parsing of the match found
        mp.setattr(taskids, "_claim", lambda _text: match)
        return claimed_children(text)


def _reference_mentions(text: str) -> set[tuple[str, str]]:
    found = {("task", task_id_for_child(m.rstrip(".")) or m.rstrip("."))
             for m in taskids._TASK_RE.findall(text)}
    return found | {("client_request", c.rstrip(".:")) for c in taskids._CRID_RE.findall(text)}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORDS) | st.text(max_size=3), max_size=24))
@example(["rerunning 2 tasks, then Kicked  Off the", "3 new", "workers: a, b"])
@example(["\u017ftarted", "2", "children:", "é"])
@example(["see", "node:delegated-task:a%3Ab.", "and", "clientRequestId:", "`x-1`"])
def test_claims_and_mentions_are_what_the_regexes_find_anywhere(parts: list[str]) -> None:
    text = " ".join(parts)
    assert claimed_children(text) == _reference_claim(text)
    assert mentions(text) == _reference_mentions(text)
