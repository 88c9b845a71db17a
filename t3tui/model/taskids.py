"""Delegated-task ids (delegation.md §3.4) and task mentions in agent text."""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote

TASK_PREFIX = "node:delegated-task:"
CHILD_PREFIX = "thread:delegated-task:"
_MARK = ":delegate-task:"

_ID_CHARS = r"[A-Za-z0-9%._~\-]+"
_TASK_RE = re.compile(r"(?:node|thread):delegated-task:" + _ID_CHARS)
# the first line of t3tui's own forwarding message (`forwarding.forward_text`/`unheard_text`);
# the title is quoted as one line, so the last "(taskId" on that line is ours
_FORWARD_RE = re.compile(r'(?:Result|Answer) of the delegated task ".*" \(taskId (\S+)\), '
                         r"forwarded by t3tui")
_CRID_RE = re.compile(r"client_?request_?id[\"'`]?\s*[:=]\s*[\"'`]?([A-Za-z0-9][\w.:\-]{0,255})", re.I)


@lru_cache(maxsize=4096)  # a pure function of the id, asked for every task row on every rebuild
def client_request_id(task_or_child_id: str | None) -> str | None:
    """The caller's clientRequestId encoded in a task (or child thread) id, if any."""
    if not task_or_child_id:
        return None
    for prefix in (TASK_PREFIX, CHILD_PREFIX):
        if task_or_child_id.startswith(prefix):
            command_id = unquote(task_or_child_id[len(prefix):])
            _, mark, rest = command_id.partition(_MARK)
            return (rest or None) if mark else None
    return None


def task_id_for_child(child_thread_id: str) -> str | None:
    """The task id matching a `thread:delegated-task:` child id (same encoded command id)."""
    if child_thread_id.startswith(CHILD_PREFIX):
        return TASK_PREFIX + child_thread_id[len(CHILD_PREFIX):]
    return None


# Every assistant message is read for mentions and claims on each of its updates, and a
# streamed message comes whole every time: the regexes tried at every position of it cost
# ~70 us a KiB per update. On ASCII text (where lowering is exact and re.I matches only ASCII
# case), each is tried only where the words it must start with stand, found by `str.find`.


def mentions(text: str) -> set[tuple[str, str]]:
    """(`task`, task id) and (`client_request`, id) pairs named in free text."""
    found: set[tuple[str, str]] = set()
    if "delegated-task:" in text:
        for match in _TASK_RE.findall(text):
            token = match.rstrip(".")
            task = task_id_for_child(token) or token
            found.add(("task", task))
    if not text.isascii() or "client" in text.lower():
        for crid in _CRID_RE.findall(text):
            found.add(("client_request", crid.rstrip(".:")))
    return found


_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "both": 2}
_CLAIM_VERBS = ("started", "launched", "spawned", "delegated", "dispatched", "kicked off",
                "running")
_CLAIM_RE = re.compile(
    r"\b(?:" + "|".join(_CLAIM_VERBS) + r")\s+(?:the\s+)?"
    r"(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|both)\s+(?:\w+\s+)?"
    r"(?:children|child|sub-?agents?|tasks?|agents?|workers?|reviewers?)\b(?P<rest>[^\n]*)",
    re.I,
)


def _claim(text: str) -> re.Match[str] | None:
    """`_CLAIM_RE.search(text)`: on ASCII text, tried only where one of its verbs starts."""
    if not text.isascii():
        return _CLAIM_RE.search(text)
    low = text.lower()
    starts = []
    for verb in _CLAIM_VERBS:
        at = low.find(verb)
        while at != -1:
            starts.append(at)
            at = low.find(verb, at + 1)
    for at in sorted(starts):
        if (match := _CLAIM_RE.match(text, at)) is not None:  # (`\b` sees the char before)
            return match
    return None


def claimed_children(text: str) -> tuple[int, tuple[str, ...]] | None:
    """"Started 2 children: a, b." -> (2, ("a", "b")): how many children the agent says it
    started, and the names it lists after a colon (if any)."""
    match = _claim(text)
    if match is None:
        return None
    word = match.group(1).lower()
    count = int(word) if word.isdigit() else _NUMBERS[word]
    names: tuple[str, ...] = ()
    rest = match.group("rest").strip()
    if rest.startswith(":"):
        listed = re.split(r",|\band\b", rest[1:].strip().removesuffix("."))
        names = tuple(n.strip(" `'\"") for n in listed if n.strip(" `'\""))
    return count, names


def forwarded_task(text: str) -> str | None:
    """The task id whose result this user message forwards, when t3tui wrote it."""
    first = text.partition("\n")[0]
    match = _FORWARD_RE.match(first)
    return match.group(1) if match else None
