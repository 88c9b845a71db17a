"""A finding's remedy reads the same everywhere: the sentence the app's detail pane shows
(`t3tui.model.remedy`) is in the triage report (`t3tui report`), in `t3tui status`'s findings
and in plain `t3tui interrupt`'s answer on a runaway, each with how to start it from a shell;
the JSON documents (`status --json`, `report --json`) give it as each finding's `remedy`.
The reference backend's `runaway-provider` scenario, real agent processes, the default
dwells (a one-shot command sees the finding only once its dwell held)."""

from __future__ import annotations

import json

import pytest

from t3tui.model.labels import short_id
from t3tui.model.remedy import remedy
from tests.headless.cli import cli, server_args
from tests.runaway import watched_runaway

pytestmark = pytest.mark.e2e


def flat(text: str) -> str:
    """Output as one line of words: wrapping and Markdown's line breaks do not matter here."""
    return " ".join(text.split())


async def test_the_report_status_and_interrupt_name_a_runaways_remedy_in_the_same_words() -> None:
    async with watched_runaway(600 + 41.25) as run:  # a sleep length no other test uses
        found = run.found
        cure = remedy(found)
        assert cure is not None and "forced stop" in cure
        command = f"t3tui interrupt {short_id(found.thread_id)} --force"
        args = server_args(run.backend)

        report = await cli("report", found.thread_id, *args)
        assert report.code == 0, report
        section = flat(report.out.split("## Findings", 1)[1].split("## What was done")[0])
        assert f"Remedy: {cure}" in section, section
        assert command in section, section

        status = await cli("status", *args)
        assert status.code == 1, status
        assert f"→ {cure}; from a shell: {command}" in flat(status.out), status.out

        plain = await cli("interrupt", found.thread_id, *args)
        assert plain.code == 1, plain
        assert cure in flat(plain.out) and command in plain.out, plain.out

        for command in (("status", "--json"), ("report", found.thread_id, "--json")):
            doc = await cli(*command, *args)
            assert doc.code in (0, 1), doc
            findings = json.loads(doc.out)["findings"]
            runaway = [f for f in findings if f["threadId"] == found.thread_id
                       and f["rule"] == found.rule]
            assert [f["remedy"] for f in runaway] == [cure], (command, findings)
