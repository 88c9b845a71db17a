"""Human output for the headless commands: rich `Text` built piece by piece.

Titles, reasons and messages come from agents, so they are appended as plain text and never
parsed as markup (`[bold]` in a title stays `[bold]`).
"""

from __future__ import annotations

from datetime import datetime

from rich.console import Console
from rich.text import Text

from t3tui.model import Finding, SupervisorView, ThreadRow

STATE_STYLES = {
    "needs-input": "bold magenta",
    "stuck": "bold red",
    "creating": "cyan",
    "queued": "cyan",
    "running": "green",
    "draining": "yellow",
    "waiting": "blue",
    "done": "bright_black",
    "settled": "bright_black",
    "idle": "bright_black",
}


def console(stderr: bool = False) -> Console:
    # No highlighting or emoji codes: nothing in agent text may change how it looks.
    return Console(stderr=stderr, highlight=False, emoji=False, soft_wrap=True)


def age(since: datetime | None, now: datetime) -> str:
    """`40s`, `12m`, `3h05m`, `2d4h`; empty when unknown."""
    if since is None:
        return ""
    seconds = max(0, int((now - since).total_seconds()))
    if seconds < 60:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 48:
        return f"{hours}h{minutes % 60:02d}m"
    return f"{hours // 24}d{hours % 24}h"


def state_label(state: str) -> Text:
    return Text(state, style=STATE_STYLES.get(state, ""))


def row_line(row: ThreadRow, now: datetime) -> Text:
    line = Text("  " * row.depth)
    line.append_text(state_label(row.state))
    line.append(" ")
    line.append(row.title or row.id, style="bold")
    if row.state_reason:
        line.append(" · ")
        line.append(row.state_reason)
    since = age(row.state_since, now)
    if since:
        line.append(f" ({since})", style="dim")
    overlays = [o for o in row.overlays if o != row.state]
    if overlays:
        line.append(" [" + ", ".join(overlays) + "]", style="dim")
    line.append(f"  {row.id}", style="dim")
    return line


def finding_line(finding: Finding, view: SupervisorView) -> Text:
    row = view.row(finding.thread_id)
    line = Text("! ", style="bold red")
    line.append(finding.kind, style="bold")
    line.append(" ")
    line.append(row.title if row is not None and row.title else finding.thread_id)
    line.append(": ")
    line.append(finding.reason)
    line.append(f"  [{finding.rule}]", style="dim")
    return line


def tree(view: SupervisorView) -> list[Text]:
    """The whole status report: one line per thread, then the findings."""
    lines = [row_line(row, view.now) for row in view.rows]
    if not view.rows:
        lines.append(Text("no threads", style="dim"))
    if view.findings:
        lines.append(Text(""))
        lines.extend(finding_line(f, view) for f in view.findings)
    else:
        lines.append(Text("nothing flagged", style="dim"))
    return lines
