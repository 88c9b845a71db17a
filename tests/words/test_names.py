"""Human names for wire ids (`t3tui.words.names`), looked up in any `row(id)` source."""

from __future__ import annotations

from dataclasses import dataclass

from t3tui.words.names import Rows, display_id, humanize, name_for
from tests.model.factory import task_ids

TASK, CHILD = task_ids("review-a")
_, UNKNOWN = task_ids("gone-7")


@dataclass(frozen=True)
class Row:
    title: str | None


THREADS = Rows({CHILD: Row("Review A"), "thread-parent": Row("Two reviews")})


def test_a_task_id_and_its_childs_id_are_named_by_the_childs_title() -> None:
    assert name_for(TASK, THREADS) == "“Review A” (review-a)"
    assert name_for(CHILD, THREADS) == "“Review A” (review-a)"
    assert name_for("thread-parent", THREADS) == "“Two reviews” (thread-parent)"
    # unknown, or no names at all: the short id alone, never the encoded id
    assert name_for(UNKNOWN, THREADS) == "gone-7"
    assert name_for(TASK, None) == "review-a"


def test_an_environments_thread_is_named_from_its_own_environment() -> None:
    laptop = Rows({"laptop:" + CHILD: Row("Review A on the laptop")})
    assert name_for(TASK, laptop, "laptop:thread-parent") == "“Review A on the laptop” (review-a)"
    assert name_for(TASK, laptop) == "review-a"  # which environment: not known
    assert display_id("laptop:" + CHILD) == "review-a"


def test_humanize_names_every_id_in_a_sentence_and_keeps_its_full_stop() -> None:
    text = f"Delegated task {TASK} reached a terminal state. Use task_status with taskId {TASK}."
    assert humanize(text, THREADS) == (
        "Delegated task “Review A” (review-a) reached a terminal state. Use task_status with "
        "taskId “Review A” (review-a).")
    assert humanize("no ids here", THREADS) == "no ids here"


def test_an_id_cut_short_by_a_long_message_leaves_no_half_id() -> None:
    # a message cut at its length limit can end in the middle of an id: the half id names
    # nothing, and `%3A…` is no name
    cut = f"Use task_status with taskId {TASK[:30]}…"
    assert humanize(cut, THREADS) == "Use task_status with taskId …"
    assert "%3A" not in humanize(cut, None)


def test_a_long_title_is_cut_and_a_title_cannot_break_the_line() -> None:
    threads = Rows({CHILD: Row("x" * 60 + "\nsecond line")})
    named = name_for(TASK, threads)
    assert named.startswith("“xxx") and named.endswith("…” (review-a)") and "\n" not in named
