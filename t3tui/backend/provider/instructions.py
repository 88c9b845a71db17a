"""The scripted agent's instruction language (documented in docs/BACKEND.md).

A turn's user message is read left to right. Recognised statements, case-insensitive:

- ``Reply PONG`` / ``Reply exactly X`` / ``reply X``: answer X (to the end of the sentence).
- ``Run `CMD` ``: run CMD as a real subprocess, streaming its output.
- ``Ask for approval to run `CMD` ``: raise a runtime request; run CMD once accepted.
- ``delegate_task {json}`` or ``delegate_task({json})``: one delegation call; consecutive calls
  form one block, issued in one assistant message.
- ``Hang``: never finish the turn on its own (until interrupted).
- ``Fail with X``: end the turn as failed with message X.
- A completion wake ("Delegated task(s) ... reached a terminal state ... taskId ...") reads each
  task with `task_status`, then follows the provider's `wakeReaction`, if any.

Anything else is ignored, so prose around the statements is harmless.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

DEFAULT_REPLY = "OK"


@dataclass(frozen=True)
class RunCommand:
    command: str


@dataclass(frozen=True)
class AskApproval:
    command: str


@dataclass(frozen=True)
class Delegate:
    """One block of `delegate_task` calls issued together."""

    calls: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Reply:
    text: str


@dataclass(frozen=True)
class Hang:
    pass


@dataclass(frozen=True)
class Fail:
    message: str


@dataclass(frozen=True)
class ReadTasks:
    """The agent reads delegated task results (how a woken parent reacts)."""

    task_ids: tuple[str, ...]


@dataclass(frozen=True)
class BadInstruction:
    """A statement that was recognised but could not be parsed (e.g. invalid JSON)."""

    message: str


Step = RunCommand | AskApproval | Delegate | Reply | Hang | Fail | ReadTasks | BadInstruction


@dataclass
class Script:
    steps: list[Step] = field(default_factory=list)


_TOKEN = re.compile(
    r"(?P<approval>ask\s+for\s+approval\s+to\s+run\s+`(?P<acmd>[^`]+)`)"
    r"|(?P<run>\brun\s+`(?P<cmd>[^`]+)`)"
    r"|(?P<delegate>\bdelegate_task\b\s*\(?\s*(?=\{))"
    r"|(?P<reply>\breply\s+(?:exactly\s+)?(?P<text>[^\n]*))"
    r"|(?P<hang>\bhang\b)"
    r"|(?P<fail>\bfail\s+with\s+(?P<ftext>[^\n]*))",
    re.IGNORECASE,
)
_WAKE = re.compile(r"^Delegated tasks? .* reached a terminal state", re.IGNORECASE)
_TASK_ID = re.compile(r"node:delegated-task:[^\s,]+")
_SENTENCE_END = re.compile(r"\.(\s|$)")


def _sentence(text: str) -> str:
    """Text up to the end of its sentence, without the final period."""
    match = _SENTENCE_END.search(text)
    return (text[: match.start()] if match else text).strip()


def is_wake(message: str) -> bool:
    """A completion wake: the agent reads the tasks it names."""
    return _WAKE.search(message.strip()) is not None


def parse(message: str) -> list[Step]:
    """Turn a user message into the steps the scripted agent will perform."""
    if is_wake(message):
        ids = tuple(dict.fromkeys(m.rstrip(".") for m in _TASK_ID.findall(message)))
        return [ReadTasks(ids)]
    steps: list[Step] = []
    decoder = json.JSONDecoder()
    pos = 0
    while (match := _TOKEN.search(message, pos)) is not None:
        pos = match.end()
        if match.group("approval"):
            steps.append(AskApproval(match.group("acmd").strip()))
        elif match.group("run"):
            steps.append(RunCommand(match.group("cmd").strip()))
        elif match.group("delegate") is not None:
            try:
                args, end = decoder.raw_decode(message, match.end())
            except json.JSONDecodeError as exc:
                steps.append(BadInstruction(f"delegate_task arguments are not valid JSON: {exc}"))
                continue
            pos = end
            if pos < len(message) and message[pos] == ")":
                pos += 1
            if not isinstance(args, dict):
                steps.append(BadInstruction("delegate_task arguments must be a JSON object"))
            elif steps and isinstance(steps[-1], Delegate):
                steps[-1] = Delegate((*steps[-1].calls, args))
            else:
                steps.append(Delegate((args,)))
        elif match.group("reply") is not None:
            steps.append(Reply(_sentence(match.group("text"))))
            pos = match.start("text") + len(_sentence(match.group("text")))
        elif match.group("hang"):
            steps.append(Hang())
        elif match.group("fail") is not None:
            steps.append(Fail(_sentence(match.group("ftext")) or "Scripted failure"))
    return steps
