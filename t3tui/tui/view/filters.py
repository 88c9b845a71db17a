"""Row filters: `/` text with state prefixes, and the "problems only" toggle.

Syntax (agent-deck / k9s conventions): words match the title or id (every word must match,
case-insensitive); a word starting with `!` running, `@` needs input, `#` idle, `&` stuck,
`~` waiting, or `state:NAME` narrows by state. A matching child keeps its ancestors visible,
so the tree keeps its shape; a parent found by text brings its children along.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.view.labels import STATE_LOOK, is_problem

PREFIXES: dict[str, frozenset[str]] = {
    "!": frozenset({"running"}),
    "@": frozenset({"needs-input"}),
    "#": frozenset({"idle"}),
    "&": frozenset({"stuck"}),
    "~": frozenset({"waiting"}),
}
SYNTAX_HELP = (
    "words match title or id · !running  @needs-input  #idle  &stuck  ~waiting  "
    "state:NAME · 0 or escape clears"
)


class FilterError(ValueError):
    """A filter the user typed cannot be understood; the message says why."""


@dataclass(frozen=True)
class RowFilter:
    """What the user asked to see. The empty filter shows everything."""

    words: tuple[str, ...] = ()
    states: frozenset[str] = field(default_factory=frozenset)
    problems_only: bool = False

    @property
    def active(self) -> bool:
        return bool(self.words or self.states or self.problems_only)

    def matches(self, row: ThreadRow) -> bool:
        if self.problems_only and not is_problem(row):
            return False
        if self.states and row.state not in self.states:
            return False
        haystack = f"{row.title}\n{row.id}".casefold()
        return all(w in haystack for w in self.words)

    def describe(self) -> str:
        parts = []
        if self.problems_only:
            parts.append("problems only")
        if self.states:
            parts.append("state " + "|".join(sorted(self.states)))
        if self.words:
            parts.append(" ".join(f'"{w}"' for w in self.words))
        return ", ".join(parts)


def _state_name(text: str) -> str:
    name = text.strip().casefold().replace(" ", "-")
    aliases = {"needs_input": "needs-input", "input": "needs-input", "stuck?": "stuck"}
    name = aliases.get(name, name)
    if name not in STATE_LOOK:
        known = ", ".join(STATE_LOOK)
        raise FilterError(f"no such state {text!r}; the states are: {known}")
    return name


def _names_state(text: str, states: frozenset[str]) -> bool:
    """Whether `text` is one of `states` by name: `!running` as the help spells it."""
    try:
        return _state_name(text) in states
    except FilterError:
        return False


def parse_filter(text: str, *, problems_only: bool = False, strict: bool = True) -> RowFilter:
    """Parse what was typed after `/`; raises `FilterError` with a readable reason. Not
    `strict`: a `state:` word naming no state is left out (while it is being typed), never
    taken as the text "state"."""
    words: list[str] = []
    states: set[str] = set()
    for token in text.split():
        prefix = token[0]
        if prefix in PREFIXES:
            states |= PREFIXES[prefix]
            rest = token[1:]
            if rest and not _names_state(rest, PREFIXES[prefix]):
                words.append(rest.casefold())
        elif token.casefold().startswith("state:"):
            try:
                states.add(_state_name(token.split(":", 1)[1]))
            except FilterError:
                if strict:
                    raise
        else:
            words.append(token.casefold())
    return RowFilter(tuple(words), frozenset(states), problems_only)


def visible_ids(view: SupervisorView, flt: RowFilter,
                keep: str | None = None) -> set[str] | None:
    """Ids to show: matching rows plus their ancestors; for a text-only filter also their
    descendants (find a parent by name, see its children). None when nothing is filtered.
    `keep` (the thread under the cursor) stays shown though it no longer matches: answered
    under `@needs-input`, the thread the user just acted on keeps the cursor until it moves."""
    if not flt.active:
        return None
    subtrees = not (flt.states or flt.problems_only)
    shown: set[str] = set()
    for row in view.rows:
        if not flt.matches(row) and row.id != keep:
            continue
        current: ThreadRow | None = row
        while current is not None and current.id not in shown:
            shown.add(current.id)
            current = view.row(current.parent_id) if current.parent_id else None
        stack = list(row.children) if subtrees else []
        while stack:
            child = stack.pop()
            if child not in shown:
                shown.add(child)
                found = view.row(child)
                stack.extend(found.children if found else ())
    return shown
