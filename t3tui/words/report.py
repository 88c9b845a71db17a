"""The triage report as Markdown, shaped like a good bug report (seed 004's layout).

Agent and server text never reaches Markdown unquoted: in prose and tables it is one line
with every ASCII punctuation character backslash-escaped (CommonMark renders each literally),
in the timeline it sits in a fenced block whose fence is longer than any backtick run inside,
and every line there starts with a time, so nothing can close the fence early.

Threads are named in the text as everywhere else, by title and short id (`names`), looked up
among the threads the report lists; the raw ids are kept in one appendix at the end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from t3tui.model import Finding
from t3tui.model.labels import FINDING_WORDS, clock, evidence_value, one_line
from t3tui.model.remedy import remedy, remedy_command
from t3tui.words.names import Rows, Threads, humanize, name_for
from t3tui.words.story import moments

# what can start markup inside a line (CommonMark); line-start markers are handled apart
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&!])")
_LINE_START = re.compile(r"^(\s*)([-+#=>])")
_ORDERED = re.compile(r"^(\s*\d+)([.)])")
_TICKS = re.compile(r"`+")
THREAD_WIDTH = 12


def md(text: Any, *, line_start: bool = False) -> str:
    """Untrusted text for Markdown prose or a table cell: one line, markup escaped; at the
    start of a line (`line_start`) also what would open a heading, list or quote."""
    escaped = _SPECIAL.sub(r"\\\1", one_line(str(text)))
    if not line_start:
        return escaped
    escaped = _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)
    return _ORDERED.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)


def fence(lines: list[str], info: str = "text") -> list[str]:
    longest = max((len(m) for line in lines for m in _TICKS.findall(line)), default=0)
    mark = "`" * max(3, longest + 1)
    return [f"{mark}{info}", *lines, mark]


def hms(iso: str | None) -> str:
    if not iso:
        return "?"
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime("%H:%M:%S.%f")[:-3]


@dataclass(frozen=True)
class _Titled:
    title: str | None


def _lineage_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The threads the report lists, each once: this thread, its parent, siblings, children."""
    lineage = doc["lineage"]
    rows = [doc["thread"], *([lineage["parent"]] if lineage["parent"] else []),
            *lineage["siblings"], *lineage["children"]]
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        seen.setdefault(row["id"], row)
    return list(seen.values())


def document_threads(doc: dict[str, Any]) -> Threads:
    """The threads a report document lists, to name threads by (`names.name_for`)."""
    return Rows({row["id"]: _Titled(row["title"]) for row in _lineage_rows(doc)})


def code(text: Any) -> str:
    """Untrusted text as a code span, verbatim: the fence is longer than any backtick run."""
    text = one_line(str(text))
    longest = max((len(m) for m in _TICKS.findall(text)), default=0)
    mark = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{mark}{pad}{text}{pad}{mark}"


def render_markdown(doc: dict[str, Any]) -> str:
    out: list[str] = [f"# {md(doc['title'])}", ""]
    thread = doc["thread"]
    threads = document_threads(doc)
    reason = humanize(thread["stateReason"] or "", threads, thread["id"])
    out += [f"**{md(thread['title'] or thread['shortId'])}** ({md(thread['shortId'])}) is "
            f"**{md(thread['state'])}**" + (f": {md(reason)}" if reason else "")
            + f", as of {hms(doc['at'])} UTC ({md(doc['at'])}).", ""]
    out += _environment(doc)
    out += ["## Lineage", ""]
    tree = [("   " * line["depth"] + ("└─ " if line["depth"] else "")
             + f"{line['glyph']} {one_line(line['state']):<12} {one_line(line['title'])}"
             + f"  [{one_line(line['shortId'])}]"
             + ("  <- this report" if line["role"] == "this thread" else ""))
            for line in doc["lineage"]["tree"]]
    out += [*fence(tree), ""]
    out += _timeline(doc, threads)
    out += _findings(doc, threads)
    out += _actions(doc)
    out += _checkins(doc)
    out += _appendix(doc, threads)
    out += [f"_Written by {md(doc['generatedBy'])} from {md(_source(doc['source']))}._", ""]
    return "\n".join(out)


def _source(source: dict[str, Any]) -> str:
    span = f"{hms(source.get('from'))} to {hms(source.get('to'))} UTC"
    if source.get("kind") == "recording":
        return f"the recording {source.get('path')} ({span})"
    if source.get("kind") == "session":
        return (f"this session with {source.get('url')} ({span}; its recording is not kept: "
                "--record FILE keeps one)")
    return f"a live connection to {source.get('url')}"


def _environment(doc: dict[str, Any]) -> list[str]:
    env = doc["environment"]
    server = env["server"]
    platform = server.get("platform") if isinstance(server.get("platform"), dict) else {}
    rows = [
        ("Server", " · ".join(md(v) for v in (server.get("label"), server.get("serverVersion"))
                              if v) or "unknown"),
        ("Environment", md(server.get("environmentId") or "unknown")
         + (f" ({md(platform.get('os'))}/{md(platform.get('arch'))})" if platform else "")),
        ("Protocol", f"orchestration protocol {md(env.get('protocolVersion') or '?')}"),
        ("Providers / models", ", ".join(md(p) for p in env["providers"]) or "unknown"),
        ("Seen by", md(doc["generatedBy"]) + f", {md(_source(doc['source']))}"),
    ]
    return ["## Environment", "", "| What | Value |", "|---|---|",
            *(f"| {k} | {v} |" for k, v in rows), ""]


def _timeline(doc: dict[str, Any], threads: Threads) -> list[str]:
    out = ["## Timeline (UTC)", ""]
    lines = []
    for entry in doc["timeline"]:
        who = "" if entry["role"] == "client" else one_line(entry["role"])
        context = entry["threadId"] or doc["thread"]["id"]
        text = one_line(humanize(entry["text"], threads, context))
        if entry["detail"]:
            text += f": “{one_line(humanize(entry['detail'], threads, context))}”"
        if entry["serverTime"]:
            text += " (server time, from a snapshot)"
        lines.append(f"{hms(entry['at'])}  {entry['offset'] or '':>10}  "
                     f"{who:<{THREAD_WIDTH}} {text}")
    if not lines:
        return [*out, "Nothing was recorded for these threads.", ""]
    return [*out, *fence(lines), ""]


def _finding(entry: dict[str, Any]) -> Finding:
    return Finding(entry["kind"], entry["threadId"], entry["rule"], entry["reason"],
                   entry["evidence"] or {})


def _evidence_value(key: str, value: Any, threads: Threads, context: str) -> str:
    """An evidence value for its table: a thread or task id by name, else `evidence_value`."""
    if key.endswith(("ThreadId", "TaskId")) and isinstance(value, str) and value:
        return name_for(value, threads, context)
    return evidence_value(value, 80)


def _findings(doc: dict[str, Any], threads: Threads) -> list[str]:
    out = ["## Findings", ""]
    if not doc["findings"]:
        return [*out, "None at the report's moment.", ""]
    for finding in doc["findings"]:
        word = FINDING_WORDS.get(finding["kind"], finding["kind"])
        where = finding["threadId"]
        told = moments(_finding(finding), threads, where)
        out += [f"### ⚑ {md(word)} · `{md_code(finding['rule'])}` on "
                f"{md(name_for(where, threads, where))}",
                "", md(humanize(finding["reason"], threads, where), line_start=True), ""]
        if told:
            out += [*(f"- {md(f'{clock(m.at)}  {m.text}')}" for m in told), ""]
        out += _remedy(_finding(finding), doc)
        out += [f"- since: {hms(finding['since'])} UTC" if finding["since"] else "- since: ?",
                f"- first flagged: {hms(finding['flaggedAt'])} UTC" if finding["flaggedAt"]
                else "- first flagged: before the recording's first moment", ""]
        if finding["evidence"]:
            out += ["| Evidence | Value |", "|---|---|"]
            out += [f"| {md(key)} | {md(_evidence_value(key, value, threads, where))} |"
                    for key, value in finding["evidence"].items()]
            out.append("")
    return out


def _remedy(finding: Finding, doc: dict[str, Any]) -> list[str]:
    """What ends the finding (the app's detail pane says the same), and how to start it."""
    cure = remedy(finding)
    if cure is None:
        return []
    shown = {row["id"]: row["shortId"] for row in _lineage_rows(doc)}
    command = remedy_command(finding, shown.get(finding.thread_id, finding.thread_id))
    how = f"; from a shell: {code(command)}" if command else ""
    return [f"Remedy: {md(cure)}{how}.", ""]


def md_code(text: str) -> str:
    """A rule name (our own vocabulary) inside a code span: backticks dropped."""
    return one_line(text).replace("`", "")


def _actions(doc: dict[str, Any]) -> list[str]:
    out = ["## What was done", ""]
    if not doc["actions"]:
        return [*out, "t3tui sent no command to these threads in this recording.", ""]
    out += ["| UTC | Command | Thread | Server | Then the stream showed |", "|---|---|---|---|---|"]
    for action in doc["actions"]:
        server = action["outcome"] + (f": {action['message']}" if action["message"] else "")
        then = (f"{hms(action['confirmedAt'])} {action['confirmed']}" if action["confirmedAt"]
                else action["confirmed"] or "no effect seen")
        command = action["command"] + (f" (by {action['by']})" if action.get("by") else "")
        out.append(f"| {hms(action['at'])} | {md(command)} | "
                   f"{md(action['thread'] or '')} | {md(server)} | {md(then)} |")
    return [*out, ""]


def _appendix(doc: dict[str, Any], threads: Threads) -> list[str]:
    """The one place the raw ids are: each thread the report names, and its id on the wire."""
    out = ["## Appendix: thread ids", "", "| Thread | Id |", "|---|---|"]
    for row in _lineage_rows(doc):
        out.append(f"| {md(name_for(row['id'], threads, doc['thread']['id']))} | "
                   f"{code(row['id'])} |")
    return [*out, ""]


def _checkins(doc: dict[str, Any]) -> list[str]:
    if not doc["checkins"]:
        return []
    out = ["## Check-ins", "", "| Sent | Deadline | Thread | Asked | Verdict |",
           "|---|---|---|---|---|"]
    for c in doc["checkins"]:
        verdict = c["verdict"] + (f" in {c['latencySeconds']:.3g} s" if c["latencySeconds"]
                                  is not None else "")
        out.append(f"| {hms(c['sentAt'])} | {hms(c['deadline'])} | {md(c['thread'])} | "
                   f"{md(c['text'])} | {md(verdict)}: {md(c['reason'])} |")
    return [*out, ""]
