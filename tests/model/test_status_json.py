"""`status --json`, the exit-code rule and `changes()` between views."""

from __future__ import annotations

import json

from t3tui.model import Supervisor, changes, exit_code, status_document
from tests.model.factory import shell_row, task_ids
from tests.model.replay import supervisor, view_at

_, CHILD = task_ids("ready-1")
THREAD_KEYS = {"id", "title", "parentId", "state", "stateReason", "stateSince", "runStatus",
               "settled", "children"}
FINDING_KEYS = {"kind", "threadId", "rule", "reason", "evidence", "remedy"}


def test_status_document_has_the_documented_keys_and_is_json():
    doc = status_document(view_at(supervisor("seed004_detached"), 141))
    json.dumps(doc)
    assert doc["schemaVersion"] == 1 and doc["exitCode"] == 1
    assert all(set(t) >= THREAD_KEYS for t in doc["threads"])
    assert all(set(f) >= FINDING_KEYS for f in doc["findings"])
    child = next(t for t in doc["threads"] if t["id"] == CHILD)
    assert child["state"] == "stuck" and child["parentId"] == "thread-parent"
    assert child["stateSince"] == "2026-10-04T12:02:10.500Z"
    parent = doc["threads"][0]
    assert parent["children"] == [CHILD] and parent["settled"] is True
    assert doc["findings"][0]["threadId"] == CHILD
    # a detached child's stuck run has no one action t3tui can send to end it
    assert doc["findings"][0]["remedy"] is None
    assert set(doc["counts"]) >= {"running", "waiting", "stuck", "needs-input", "done", "idle"}


def test_exit_code_rule():
    assert exit_code(view_at(supervisor("seed004_healthy"), 200)) == 0
    assert exit_code(view_at(supervisor("seed004_detached"), 141)) == 1
    assert exit_code(view_at(supervisor("seed000_serialized", fresh=True), 130)) == 1
    assert exit_code(view_at(Supervisor(), 0)) == 0


def test_changes_report_transitions_and_new_findings_only():
    sup = supervisor("seed004_detached")
    first = view_at(sup, 135)
    assert changes(None, first) == []
    later = view_at(sup, 141)
    got = [(c.kind, c.thread_id, c.old_state, c.new_state) for c in changes(first, later)]
    assert got == [("state", CHILD, "running", "stuck"), ("finding", CHILD, "running", "stuck")]
    assert changes(later, view_at(sup, 142)) == []
    assert Supervisor.changes(later, later) == []


def test_a_thread_seen_for_the_first_time_is_one_appeared_change_not_a_transition():
    sup = supervisor("seed004_detached")
    before = view_at(sup, 141)
    sup.apply_shell({"kind": "thread.updated", "sequence": 50_000, "location": "active",
                     "thread": shell_row("newcomer", "New", 140, status="running", activity="running",
                                         run="run-n", requested=140, started=140)})
    after = view_at(sup, 141)
    assert after.row("newcomer") is not None
    got = [(c.kind, c.thread_id, c.old_state, c.new_state) for c in changes(before, after)]
    assert got == [("appeared", "newcomer", None, "running")]
    # notifications act on "state" changes only: first sight never alerts
    assert all(c.kind != "state" for c in changes(before, after))


def test_cleared_finding_is_reported():
    sup = supervisor("seed000_serialized", until="mid-wait")
    flagged = view_at(sup, 45)
    assert flagged.findings
    full = supervisor("seed000_serialized", until="after-first-return")
    later = view_at(full, 62)
    kinds = {(c.kind, c.finding.rule) for c in changes(flagged, later) if c.finding}
    assert ("finding-cleared", "claimed-not-real") in kinds
    assert ("finding", "serial-arrival") in kinds
