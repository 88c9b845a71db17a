"""What the app shows about each environment (`t3tui --env ...`): the label of its tree node
and its line in the banner. Pure functions over connection states and rows."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from rich.text import Text

from t3tui.client.state import ConnectionState, Failed, Live
from t3tui.model import SupervisorView
from t3tui.model.labels import counts_text
from t3tui.model.rows import STATES
from t3tui.tui.view.labels import RowStyles, clock
from t3tui.tui.widgets.panes import banner_text, connection_word, shown_state


@dataclass(frozen=True)
class EnvStatus:
    """One environment as the app knows it now."""

    name: str
    url: str
    state: ConnectionState
    last_live: datetime | None
    has_data: bool


def env_statuses(sources: Iterable[Any], now: datetime, last_live: dict[str, datetime],
                 paused: bool) -> list[EnvStatus]:
    """Each environment of a `MultiSource` as shown `now`, noting in `last_live` when each
    was last live; `paused`: the hold after the app's own pause (none is said live)."""
    envs = []
    for env in sources:
        if isinstance(env.state, Live):
            last_live[env.name] = now
        envs.append(EnvStatus(env.name, env.url, shown_state(env.state, paused),
                              last_live.get(env.name),
                              has_data=env.source.supervisor.cursor_shell is not None))
    return envs


def env_counts(view: SupervisorView) -> dict[str, dict[str, int]]:
    """Rows per state of each environment (qualified ids `NAME:ID`)."""
    counts: dict[str, dict[str, int]] = {}
    for row in view.rows:
        env = row.id.partition(":")[0]
        per = counts.get(env)
        if per is None:
            per = counts[env] = dict.fromkeys(STATES, 0)
        per[row.state] = per.get(row.state, 0) + 1
    return counts


def hold_rows(previous: SupervisorView, view: SupervisorView,
              envs: Collection[str]) -> SupervisorView:
    """`view`, except that the rows of `envs` are those of `previous` (see
    `RenderMixin._notify_transitions`)."""
    def env(row_id: str) -> str:
        return row_id.partition(":")[0]

    rows = tuple(r for r in view.rows if env(r.id) not in envs) + tuple(
        r for r in previous.rows if env(r.id) in envs)
    return replace(view, rows=rows, by_id={r.id: r for r in rows})


def env_header(env: EnvStatus, counts: Mapping[str, int] | None, styles: RowStyles, *,
               compact: bool = False) -> Text:
    """`laptop  ● live · 2 running · 1 needs input  http://127.0.0.1:3773`."""
    live = isinstance(env.state, Live)
    word_style = styles.states.get("running") if live else (
        styles.states.get("stuck") if isinstance(env.state, Failed)
        else styles.states.get("needs-input"))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(env.name, style="bold")
    text.append("  ")
    text.append(("● " if live else "○ ") + connection_word(env.state), style=word_style)
    if env.state.stale and env.last_live is not None:
        text.append(f" · stale since {clock(env.last_live)}", style=word_style)
    total = sum(counts.values()) if counts else 0
    if total:
        text.append(" · " + counts_text(counts or {}, compact=compact))
    elif env.has_data:
        text.append(" · no threads", style=styles.dim)
    if not compact:
        text.append(f"  {env.url}", style=styles.dim)
    return text


def env_detail(env: EnvStatus, counts: Mapping[str, int] | None) -> str:
    """The detail pane while an environment's own node is selected."""
    total = sum(counts.values()) if counts else 0
    lines = [f"Environment {env.name}", env.url, "",
             f"{connection_word(env.state)}" + (
                 f" · data from {clock(env.last_live)} UTC" if env.state.stale and env.last_live
                 else ""),
             f"{total} thread{'s' * (total != 1)}" + (
                 f": {counts_text(counts or {})}" if total else ""),
             "", "Actions apply to threads: select one below (↓). In headless commands, "
             f"name its threads {env.name}:THREAD."]
    if isinstance(env.state, Failed):
        lines.insert(4, f"reason: {env.state.reason}")
    return "\n".join(lines)


def env_banner(envs: Sequence[EnvStatus], quit_key: str) -> tuple[str | None, bool]:
    """One line per environment that is not live (None when all are); True when every one
    has failed, so nothing will come back by itself."""
    all_failed = all(isinstance(e.state, Failed) for e in envs)
    lines = [text for e in envs if (text := banner_text(
        f"{e.name} ({e.url})", e.state, e.last_live, has_data=e.has_data,
        quit_key=quit_key if all_failed else None,
        not_live=f"{e.name}'s rows are not live.")) is not None]
    return ("\n".join(lines) if lines else None), all_failed
