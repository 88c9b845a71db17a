"""The detail pane's content for one thread, as plain `rich.text.Text` (never markup)."""

from __future__ import annotations

import json
from datetime import datetime

from rich.text import Text

from t3tui.model import Finding, SupervisorView, ThreadRow
from t3tui.model.findings import PROVIDER_FINISHED_UNHEARD
from t3tui.model.labels import one_line
from t3tui.model.remedy import remedy
from t3tui.tui.app.messages import ActionStatus
from t3tui.tui.sources.transcripts import Transcript
from t3tui.tui.view.labels import RowStyles, age, clock, duration, glyph, provider_text, word
from t3tui.words.names import display_id, humanize
from t3tui.words.story import story

LABEL_WIDTH = 10
MESSAGES_SHOWN = 6
MESSAGE_CHARS = 600


def _field(text: Text, name: str, styles: RowStyles) -> None:
    text.append("\n")
    if len(name) >= LABEL_WIDTH:  # "Stop the tree": its value starts under the others
        text.append(name + "\n" + " " * LABEL_WIDTH, style=styles.dim)
        return
    text.append(f"{name:<{LABEL_WIDTH}}", style=styles.dim)


def _short(value: object, limit: int = 36) -> str:
    """Evidence values for people: UTC clock times, ids cut in the middle."""
    if isinstance(value, str):
        try:
            return clock(datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            pass
        text = value
    elif isinstance(value, dict | list):
        text = json.dumps(value, default=str, separators=(",", ":"))
    else:
        text = str(value)
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return text[:half] + "…" + text[-half:]


def evidence_lines(finding: Finding, limit: int = 8) -> list[str]:
    """`key: value` lines; a list of records gets one line per record."""
    lines = []
    for key, value in finding.evidence.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for record in value:
                lines.append(f"{key}: " + ", ".join(f"{k}={_short(v)}" for k, v in record.items()))
        else:
            lines.append(f"{key}: {_short(value)}")
    return lines[:limit] + ([f"… {len(lines) - limit} more"] if len(lines) > limit else [])


def _task_line(row: ThreadRow) -> str:
    task = row.task
    assert task is not None
    parts = [task.mode]
    if task.timeout_ms is not None:
        parts.append(f"timeout {duration(task.timeout_ms / 1000)}")
    if task.mode == "wait" and task.wait_result:
        result = task.wait_result.replace("_", " ")
        if task.wait_returned_at is not None:
            result += f" {clock(task.wait_returned_at)}"
        parts.append(f"wait {result}")
    parts.append(f"wake {task.completion_wake}")
    if task.status:
        parts.append(f"status {task.status}")
    parts.append(f"delivery {task.delivery or '—'}")
    if task.client_request_id:
        parts.append(f"request {task.client_request_id}")
    return " · ".join(parts)


def reason_text(row: ThreadRow) -> str:
    """The state's reason without repeating the state word ("stuck? …" -> "…")."""
    reason = row.state_reason or ""
    for prefix in (word(row.state), row.state):
        if reason.startswith(prefix):
            reason = reason[len(prefix):].lstrip(" :·")
    return reason


def _provider_answer(row: ThreadRow, expect: str) -> str | None:
    """The provider's own record ended the turn with the check-in's answer: its words."""
    for finding in row.findings:
        said = finding.evidence.get("lastMessage") if finding.kind == PROVIDER_FINISHED_UNHEARD \
            else None
        if isinstance(said, str) and expect and expect in said:
            return one_line(said)[:40]
    return None


def action_text(status: ActionStatus, now: datetime, row: ThreadRow | None = None,
                checkin_expect: str = "PONG") -> str:
    text = status.text
    if row is not None and status.kind == "checkin" and text.startswith("check-in unanswered"):
        # T3 never got the answer the provider's record shows it gave: say both, not one
        said = _provider_answer(row, checkin_expect)
        if said is not None:
            text = (f"check-in unanswered in T3 — the provider answered {said} "
                    f"(its own record){text.removeprefix('check-in unanswered')}")
    if not status.done and status.deadline is not None:
        total = (status.deadline - status.started).total_seconds()
        left = max(0.0, (status.deadline - now).total_seconds())
        text += f" · waiting {_mmss(total - left)} / {_mmss(total)}"
    return text


def _mmss(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60}:{s % 60:02d}"


def render_detail(
    row: ThreadRow | None,
    view: SupervisorView | None,
    transcript: Transcript,
    now: datetime,
    styles: RowStyles,
    *,
    actions: list[ActionStatus] | None = None,
    answer_key: str = "a",
    interrupt_key: str = "i",
    raw: bool = False,
    raw_key: str = "v",
    checkin_expect: str = "PONG",
) -> Text:
    """Everything known about `row`; a hint when nothing is selected. Wire ids in text are
    shown as thread names and findings as a story (`story.py`); `raw` shows the raw ids and
    the `key=value` evidence instead."""
    if row is None or view is None:
        return Text("Select a thread (↑/↓) to see its state, task, runs and messages.",
                    style=styles.dim)
    state_style = styles.states.get(row.state)
    text = Text()
    def human(value: str) -> str:
        return value if raw else humanize(value, view, row.id)

    text.append(row.title or display_id(row.id), style=styles.title)
    text.append("\n" + (row.id if raw else display_id(row.id)), style=styles.dim)
    if not raw and display_id(row.id) != row.id:
        text.append(f"  ({raw_key}: raw id)", style=styles.dim)
    text.append("\n\n")
    text.append(f"{glyph(row.state)} {word(row.state)}", style=state_style)
    since = age(row.state_since, now)
    if since:
        text.append(f" {since}", style=state_style)
    reason = reason_text(row)
    if reason:
        text.append(" — ")
        text.append(human(reason))
    if row.state_since is not None:
        text.append(f"\n  since {clock(row.state_since)} UTC", style=styles.dim)
    hidden = {"stuck?", row.state}  # the state line already says these
    overlays = [o for o in row.overlays if o not in hidden]
    if overlays:
        text.append("\n  " + " · ".join(overlays), style=styles.dim)
    for finding in row.findings:
        text.append("\n  ⚑ ", style=styles.finding)
        text.append(finding.kind.replace("_", " "), style=styles.finding)
        text.append(f" · {finding.rule}", style=styles.dim)
        if finding.since is not None:
            text.append(f" · for {age(finding.since, now)}", style=styles.dim)
        text.append("\n    ")
        if raw:
            text.append(finding.reason)
            for line in evidence_lines(finding):
                text.append("\n    · ", style=styles.dim)
                text.append(line, style=styles.dim)
            continue
        sentence, timeline = story(finding, view, row.id)
        text.append(sentence)
        for line in timeline:
            text.append("\n      " + line, style=styles.dim)
        text.append(f"\n      ({raw_key}: raw evidence)", style=styles.dim)
        if (cure := remedy(finding)) is not None:
            text.append(f"\n    → {cure} (press {interrupt_key})")
    _field(text, "Provider", styles)
    who = [provider_text(row) or "unknown provider"]
    if row.origin:
        who.append(row.origin.replace("_", "-") + " child")
    if row.creation_source:
        who.append(f"via {row.creation_source}")
    if row.orphan:
        who.append("orphan (parent not shown)")
    text.append(" · ".join(who))
    if row.task is not None:
        _field(text, "Task", styles)
        text.append(_task_line(row))
    if row.pending_request is not None:
        request = row.pending_request
        _field(text, "Request", styles)
        text.append(f"{glyph('needs-input')} {request.kind}", style=styles.states.get("needs-input"))
        if request.created_at is not None:
            text.append(f" since {clock(request.created_at)} UTC")
        prompt = transcript.prompts.get(request.id)
        if prompt is not None and prompt.prompt:
            text.append("\n" + " " * LABEL_WIDTH)
            text.append(prompt.prompt[:MESSAGE_CHARS])
        text.append(f"\n{' ' * LABEL_WIDTH}press {answer_key} to answer", style=styles.dim)
    for status in actions or []:
        _field(text, status.name, styles)
        style = {"ok": styles.states.get("done"), "failed": styles.states.get("stuck"),
                 "unknown": styles.states.get("needs-input")}.get(status.phase)
        text.append(action_text(status, now, row, checkin_expect), style=style)
    runs = transcript.ordered_runs()
    if runs:
        _field(text, "Runs", styles)
        for i, run in enumerate(runs[-5:]):
            if i:
                text.append("\n" + " " * LABEL_WIDTH)
            text.append(f"#{run.ordinal} {run.status}")
            if run.started_at is not None:
                text.append(f" {clock(run.started_at)}", style=styles.dim)
                end = run.completed_at
                text.append(f" → {clock(end)}" if end else " → now", style=styles.dim)
                text.append(f" ({duration(((end or now) - run.started_at).total_seconds())})",
                            style=styles.dim)
    elif row.run_status:
        _field(text, "Runs", styles)
        text.append(f"latest {row.run_status}")
    if row.children:
        _field(text, "Children", styles)
        for i, child_id in enumerate(row.children):
            child = view.row(child_id)
            if child is None:
                continue
            if i:
                text.append("\n" + " " * LABEL_WIDTH)
            text.append(f"{glyph(child.state)} ", style=styles.states.get(child.state))
            text.append(child.title or child.id)
            text.append(f"  {word(child.state)} {age(child.state_since, now)}",
                        style=styles.states.get(child.state))
    messages = transcript.latest_messages(MESSAGES_SHOWN)
    if messages:
        text.append("\n\nLatest messages", style=styles.title)
        for message in messages:
            text.append(f"\n{message.role}", style=styles.finding)
            text.append(f" {clock(message.created_at)}", style=styles.dim)
            if message.streaming:
                text.append(" (streaming)", style=styles.dim)
            shown = human(message.text)
            body = shown if len(shown) <= MESSAGE_CHARS else (shown[:MESSAGE_CHARS] + "…")
            text.append("\n  ")
            text.append(body.replace("\n", "\n  "))
    elif row.latest_message:
        text.append("\n\nLatest message", style=styles.title)
        text.append("\n  ")
        text.append(human(row.latest_message))
    return text
