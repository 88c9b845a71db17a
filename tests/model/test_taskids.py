"""Task id decoding (delegation.md §3.4) and what counts as a claim in agent text."""

from __future__ import annotations

import pytest

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
