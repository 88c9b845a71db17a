"""The triage report: seed 004's order from our backend and from a foreign server's
recording, the JSON document, and agent text that tries to break the Markdown."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from t3tui.backend.testing import running_backend
from t3tui.client.recording import read_recording
from t3tui.client.triage import TriageRun
from t3tui.model.report import build_report
from t3tui.words.report import render_markdown
from tests.headless.cli import cli
from tests.triage import foreign
from tests.triage.flows import LiveRun

SEED004_ORDER = ("settle", "detach", "checkin", "deadline", "stuck")


def order_of(doc: dict, child: str) -> list[tuple[str, float]]:
    """Where the five seed 004 moments sit in the report's timeline (index, time)."""
    timeline = doc["timeline"]

    def first(test) -> int:
        return next(i for i, e in enumerate(timeline) if test(e))

    return [
        first(lambda e: e["kind"] == "settle" and e["role"] == "parent"),
        first(lambda e: e["kind"] == "detach" and e["role"] == "parent"),
        first(lambda e: e["kind"] == "checkin" and e["threadId"] == child),
        first(lambda e: e["kind"] == "deadline" and e["threadId"] == child),
        first(lambda e: e["kind"] == "finding" and e["threadId"] == child
              and "checkin-unanswered" in e["text"]),
    ]


def assert_seed004_report(doc: dict, markdown: str, child: str) -> None:
    indexes = order_of(doc, child)
    assert indexes == sorted(indexes), dict(zip(SEED004_ORDER, indexes, strict=True))
    assert doc["thread"]["id"] == child and doc["thread"]["state"] == "stuck"
    # the title names the strongest finding: the detach when it held long enough, or the
    # unanswered check-in
    assert doc["title"].startswith("Stuck child:")
    assert doc["title"].endswith(("(checkin-unanswered)", "(session-detached-by-other)"))
    assert any(f["rule"] == "checkin-unanswered" for f in doc["findings"])
    settle = [a for a in doc["actions"] if a["command"] == "thread.settle"]
    assert settle and settle[0]["outcome"] == "accepted" and settle[0]["confirmed"] == \
        "thread settled"
    assert doc["checkins"][0]["verdict"] == "unanswered"
    assert doc["environment"]["protocolVersion"] == 2
    # the Markdown keeps the same order
    block = markdown.split("## Timeline (UTC)")[1].split("## Findings")[0]
    positions = [block.index(s) for s in ("thread settled", "detached", "check-in sent",
                                          "deadline passed", "stuck flagged")]
    assert positions == sorted(positions)


@pytest.mark.e2e
def test_seed004_report_from_the_reference_backend_has_the_incident_in_order(
        seed004: LiveRun) -> None:
    run = TriageRun(read_recording(seed004.path))
    doc = build_report(run.gather(seed004.child, run.recording.end))
    assert_seed004_report(doc, render_markdown(doc), seed004.child)
    assert doc["environment"]["server"]["label"] == "t3tui reference backend"


def test_seed004_report_from_a_foreign_server_recording(tmp_path: Path) -> None:
    path = foreign.write(tmp_path / "nightly.ndjson.gz")
    run = TriageRun(read_recording(path))
    doc = build_report(run.gather(foreign.CHILD, run.recording.end))
    markdown = render_markdown(doc)
    assert_seed004_report(doc, markdown, foreign.CHILD)
    assert doc["environment"]["server"]["serverVersion"] == "0.1.1-nightly.20261016.3218"
    assert doc["environment"]["providers"] == ["codex/gpt-6.1-sol"]
    assert [line["role"] for line in doc["lineage"]["tree"]] == ["parent", "this thread"]
    timeline = doc["timeline"]
    detach = next(e for e in timeline if e["kind"] == "detach")
    settled = next(e for e in timeline if e["kind"] == "settle")
    assert (settled["at"], detach["at"]) == ("2026-10-16T18:12:54.209Z",
                                              "2026-10-16T18:12:54.216Z")
    assert detach["offset"] == "+7 ms"  # as in the seed's own timeline
    deadline = next(e for e in timeline if e["kind"] == "deadline")
    assert deadline["at"] == "2026-10-16T18:13:15.000Z"


async def test_report_cli_markdown_json_and_output_file(tmp_path: Path) -> None:
    path = foreign.write(tmp_path / "nightly.ndjson.gz")
    markdown = await cli("report", "--replay", str(path))  # default: the strongest finding
    assert markdown.code == 0, markdown.err
    assert markdown.out.startswith("# Stuck child: Reply READY (session-detached-by-other)")
    as_json = await cli("report", "--replay", str(path), "--json", "Reply READY")
    assert as_json.code == 0 and as_json.json()["thread"]["id"] == foreign.CHILD
    out = tmp_path / "report.md"
    written = await cli("report", "--replay", str(path), foreign.CHILD, "-o", str(out))
    assert written.code == 0 and written.out == ""
    assert out.read_text() == markdown.out and oct(out.stat().st_mode & 0o777) == "0o600"
    early = await cli("report", "--replay", str(path), "--at", "+10", foreign.CHILD, "--json")
    assert early.code == 0
    assert not early.json()["findings"] and not early.json()["checkins"]
    nothing = await cli("report", "--replay", str(path), "--at", "+10")
    assert nothing.code == 2 and "name a THREAD" in nothing.err


def test_agent_text_cannot_break_the_markdown(tmp_path: Path) -> None:
    hostile = "```\n# Fixed!\n| a | b |\n<script>x</script> [click](http://evil) \x1b]0;pwn\x07*bold*"
    quoted = json.dumps(hostile)
    text = "\n".join(json.dumps(x) for x in [{"t3tuiRecording": 1, "startedAt": foreign.at(0),
                                               "server": foreign.SERVER}, *foreign.lines()])
    text = text.replace('"title": "Reply READY"', f'"title": {quoted}')
    text = text.replace('"text": "READY"', f'"text": {quoted}')
    path = tmp_path / "hostile.ndjson.gz"
    path.write_bytes(gzip.compress(text.encode()))
    run = TriageRun(read_recording(path))
    markdown = render_markdown(build_report(run.gather(foreign.CHILD, run.recording.end)))
    assert "\x1b" not in markdown and "\x07" not in markdown
    prose = re.sub(r"(?ms)^(`{3,})text$.*?^\1$", "", markdown)  # the fenced blocks out
    assert "```" not in prose and "\n# Fixed" not in prose and "\n| a |" not in prose
    assert "<script>" not in prose and "[click](http" not in prose and "\\<script\\>" in prose
    title_line = markdown.splitlines()[0]
    assert title_line.startswith("# Stuck child: \\`\\`\\` # Fixed\\! \\| a \\| b")
    # inside the timeline's fence, no line can close it
    block = markdown.split("## Timeline (UTC)\n\n")[1].split("\n## ")[0].splitlines()
    fence = block[0].removesuffix("text")
    assert block[-1] == fence and not any(line.startswith(fence) for line in block[1:-1])


async def test_report_from_a_live_server_takes_its_token_from_a_file(tmp_path: Path) -> None:
    # --token-file is how the README says to keep a token out of `ps`; report took only --token
    async with running_backend(scenario="settle-unsubscribe") as backend:
        token = tmp_path / "token"
        token.write_text(backend.token + "\n")
        token.chmod(0o600)
        result = await cli("report", "--url", backend.url, "--token-file", str(token), "--json",
                           "thread-parent")
    assert result.code == 0, result.err
    assert result.json()["thread"]["id"] == "thread-parent"
    assert backend.token not in result.out + result.err
