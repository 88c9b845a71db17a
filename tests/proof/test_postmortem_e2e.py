"""Post-mortem from T3's own state: the reference backend keeps a T3-layout database
(--t3-state); `status --t3-db PATH --at T` rebuilds the tree and findings as of T from its V2
event rows, read-only, and says what the live view said at that moment."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import shutil
import sqlite3
from datetime import timedelta

import pytest

from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.proof.homes import ProofHomes
from t3tui.protocol import format_ts
from t3tui.tui.main import _t3db_source
from tests.headless.cli import cli
from tests.proof.helpers import settle_and_send, view_with_records, wait_for_marker

pytestmark = pytest.mark.e2e
UNHEARD = "provider_finished_unheard"


def keys(findings) -> set[tuple[str, str, str]]:
    return {(f["kind"], f["threadId"], f["rule"]) if isinstance(f, dict)
            else (f.kind, f.thread_id, f.rule) for f in findings}


def digest(folder) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


async def test_post_mortem_of_the_backends_database_matches_the_live_view(tmp_path) -> None:
    state = tmp_path / "t3"
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION], t3_state=state
    ) as backend:
        home = backend.data_dir / "codex-home"
        homes = ProofHomes(home, None, state / "userdata" / "logs" / "provider")
        child = await settle_and_send(backend, "Reply PONG")
        await wait_for_marker(backend, child, "task_complete")

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60  # the dwell, and room for a loaded machine
        while True:  # the verdict waits its dwell after task_complete
            live, _ = await view_with_records(backend, homes)
            if any(f.kind == UNHEARD for f in live.findings) or loop.time() > deadline:
                break
            await asyncio.sleep(0.5)
        assert any(f.kind == UNHEARD for f in live.findings), "the live view never showed it"
        args = ["--json", "--codex-home", str(home), "--claude-home", "off", "--t3-home", str(state)]
        post = await cli("status", "--t3-db", str(state), "--at", format_ts(live.now), *args)
        assert post.code == 1, post.err
        doc = post.json()
        assert keys(doc["findings"]) == keys(live.findings)
        assert {t["id"]: t["state"] for t in doc["threads"]} == \
            {r.id: r.state for r in live.rows}
        [unheard] = [f for f in doc["findings"] if f["kind"] == UNHEARD]
        assert unheard["evidence"]["lastMessage"] == "PONG"
        assert unheard["evidence"]["t3ProtocolLog"] == "never-received"

        # as of the database's first event nothing was wrong; before it there is nothing
        before = await cli("status", "--t3-db", str(state), "--at", "start", *args)
        assert before.code == 0 and before.json()["findings"] == [], before.out
        early = format_ts(live.now - timedelta(hours=1))
        outside = await cli("status", "--t3-db", str(state), "--at", early, *args)
        assert outside.code == 2 and "before the database's first event" in outside.err
        kept = tmp_path / "codex"  # the backend's data dir goes with it
        shutil.copytree(home, kept)

    # after the server is gone (its shutdown ended the stuck run: the final state hides the
    # fault, the moment does not); reading changes nothing on disk, with or without --copy
    userdata = state / "userdata"
    was = digest(userdata)
    at = ["--at", format_ts(live.now)]
    args[args.index(str(home))] = str(kept)
    for extra in ([], ["--copy"]):
        again = await cli("status", "--t3-db", str(userdata / "statev2.sqlite"), *at, *extra, *args)
        assert again.code == 1 and UNHEARD in again.out
        assert digest(userdata) == was
    final = await cli("status", "--t3-db", str(userdata), *args)
    assert UNHEARD not in final.out

    # the report path reads the database like a recording: same finding, same evidence
    report = await cli("report", "--t3-db", str(userdata), *at, *args[1:])
    assert report.code == 0, report.err
    assert "provider-finished-unheard" in report.out and "T3 never heard" in report.out
    assert 'last message "PONG"' in report.out
    assert was == digest(userdata)

    # the app's post-mortem source: the same tree, its clock standing at that moment
    source, clock = await asyncio.to_thread(_t3db_source, argparse.Namespace(
        t3_db=str(state), at=format_ts(live.now), copy=False, codex_home=str(kept),
        claude_home="off", t3_home=str(state), provider_records=True))
    assert "read-only" in source.label and abs((clock() - live.now).total_seconds()) < 0.001
    source.apply_all()
    view = source.supervisor.view(clock())
    assert keys(view.findings) == keys(live.findings)
    assert was == digest(userdata)


async def test_an_unknown_layout_is_one_clear_line(tmp_path) -> None:
    db = tmp_path / "state.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE orchestration_events(sequence INTEGER, stream_id TEXT)")
        conn.execute("CREATE TABLE something_else(x)")
    result = await cli("status", "--t3-db", str(db))
    assert result.code == 2 and result.out == ""
    line = result.err.strip()
    assert "\n" not in line and "application_event_version" in line and "event_type" in line
    missing = await cli("status", "--t3-db", str(tmp_path / "nope"))
    assert missing.code == 2 and "no T3 state" in missing.err
