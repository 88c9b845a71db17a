"""The triage report names threads by title and short id, and keeps the raw ids in one
appendix (issue 22, item 2): a delegated child's `%3A` id appears nowhere else."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from t3tui.client.recording import read_recording
from t3tui.client.triage import TriageRun
from t3tui.model.report import build_report
from t3tui.words.report import render_markdown
from tests.model.factory import task_ids
from tests.triage import foreign

_, CHILD = task_ids("reply-ready")


def delegated_report(tmp_path: Path) -> tuple[dict, str]:
    """The foreign seed 004 recording, its child a delegated child with a wire id."""
    text = "\n".join(json.dumps(x) for x in [{"t3tuiRecording": 1, "startedAt": foreign.at(0),
                                               "server": foreign.SERVER}, *foreign.lines()])
    path = tmp_path / "delegated.ndjson.gz"
    path.write_bytes(gzip.compress(text.replace(foreign.CHILD, CHILD).encode()))
    run = TriageRun(read_recording(path))
    doc = build_report(run.gather(CHILD, run.recording.end))
    return doc, render_markdown(doc)


def test_the_report_names_threads_and_keeps_raw_ids_in_one_appendix(tmp_path: Path) -> None:
    doc, markdown = delegated_report(tmp_path)
    assert doc["thread"]["id"] == CHILD and doc["findings"]
    body, _, appendix = markdown.partition("## Appendix: thread ids")
    assert "%3A" not in body and CHILD not in body
    assert "**Reply READY** (reply-ready) is **stuck**" in body
    assert "### ⚑ stuck · `session-detached-by-other` on “Reply READY” (reply-ready)" in body
    assert "| detachedByThreadId | “Create one child” (thread-7f1c) |" in body
    # the finding's moments, the settling parent by name
    assert ("- 18:12:54  its provider session was detached by “Create one child” (thread-7f1c) "
            "(Thread settled)") in body
    assert f"| “Reply READY” (reply-ready) | `{CHILD}` |" in appendix
    assert f"| “Create one child” (thread-7f1c) | `{foreign.PARENT}` |" in appendix


def test_a_hostile_id_cannot_close_its_code_span() -> None:
    from t3tui.words.report import code
    assert code("a`b") == "``a`b``"
    assert code("`x") == "`` `x ``"
    assert code("thread-1\nrow") == "`thread-1 row`"
