"""The replay bar: where the replay clock stands, how it moves, what comes next."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual.widgets import Static

BAR_WIDTH = 24


def span(seconds: float) -> str:
    """`1:02.3` (minutes:seconds.tenths), `1:02:03` past an hour."""
    seconds = max(0.0, seconds)
    if seconds >= 3600:
        hours, rest = divmod(int(seconds), 3600)
        return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}:{rest:04.1f}"


def bar_text(*, playing: bool, speed: int, clock: float, start: float, end: float,
             index: int, lines: int, findings: int, hint: str = "") -> Text:
    """One line: state and speed, the UTC clock, offset / length, progress, counts."""
    length = max(end - start, 0.0)
    done = 1.0 if length == 0 else min(max((clock - start) / length, 0.0), 1.0)
    filled = round(done * BAR_WIDTH)
    text = Text()
    text.append(" ▶ playing " if playing else " ⏸ paused  ", style="bold")
    text.append(f"x{speed:<3}", style="bold")
    moment = datetime.fromtimestamp(clock, UTC).strftime("%H:%M:%S.%f")[:-3]
    text.append(f"  {moment} UTC  ", style="bold")
    text.append(f"+{span(clock - start)} / {span(length)}  ")
    text.append("█" * filled, style="bold")
    text.append("░" * (BAR_WIDTH - filled), style="dim")
    text.append(f"  event {index}/{lines}", style="dim")
    if findings:
        text.append(f"  ⚑ {findings} finding" + ("s" if findings != 1 else ""), style="bold")
    if hint:
        text.append(f"  {hint}", style="italic")
    return text


class ReplayBar(Static):
    """Shown only when the app replays a recording (`t3tui --replay FILE`)."""

    def show(self, text: Text) -> None:
        self.update(text)
