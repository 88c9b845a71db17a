"""Malformed `dispatchCommand` payloads for the fuzz tests: valid commands of every V2 type
the reference backend knows (protocol §10), then mutated the ways a broken or hostile client
would: fields dropped, of the wrong type, holding lone surrogates, huge, or nested oddly."""

from __future__ import annotations

import copy
import random
from typing import Any

from tests.backend.transport.commands import MODEL, PROJECT_ID

NASTY_VALUES: list[Any] = [
    None, 0, -1, 2**64, 1.5, float("1e308"), True, False, "", " ", "\ud800", "x\udfffy",
    "\x00", "\x1b[2J", "A" * 100_000, [], [None], {}, {"type": None}, {"a": {"b": {"c": []}}},
    "thread-fuzz", "run-nope", "accept", "\u202e",
]


def base_commands(thread_id: str) -> list[dict[str, Any]]:
    return [
        {"type": "thread.create", "commandId": "c", "createdBy": "user", "creationSource": "web",
         "threadId": thread_id + "-new", "projectId": PROJECT_ID, "title": "T",
         "modelSelection": dict(MODEL), "runtimeMode": "full-access",
         "interactionMode": "default", "branch": None, "worktreePath": None},
        {"type": "message.dispatch", "commandId": "c", "createdBy": "user",
         "creationSource": "web", "threadId": thread_id, "messageId": "m", "text": "hi",
         "attachments": [], "dispatchMode": {"type": "start_immediately"}},
        {"type": "thread.settle", "commandId": "c", "threadId": thread_id},
        {"type": "thread.unsettle", "commandId": "c", "threadId": thread_id},
        {"type": "run.interrupt", "commandId": "c", "threadId": thread_id, "runId": "run-1"},
        {"type": "runtime-request.respond", "commandId": "c", "threadId": thread_id,
         "requestId": "req-1", "decision": "accept", "answers": {}},
        {"type": "provider-session.detach", "commandId": "c", "threadId": thread_id,
         "providerSessionId": "psess-1"},
        {"type": "delegated_task.request", "commandId": "c", "threadId": thread_id,
         "taskId": "task-1", "prompt": "p"},
        {"type": "delegated_task.wake-policy", "commandId": "c", "threadId": thread_id,
         "taskId": "task-1", "completionWake": "wake_parent"},
        {"type": "delegated_task.completion-delivery.acknowledge", "commandId": "c",
         "threadId": thread_id, "deliveryId": "d-1"},
        {"type": "delegated_task.completion-delivery.dispose", "commandId": "c",
         "threadId": thread_id, "deliveryId": "d-1"},
        {"type": "thread.nope", "commandId": "c", "threadId": thread_id},
    ]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out += _paths(inner, (*prefix, i))
    return out


def mutate(rng: random.Random, command: dict[str, Any], n: int) -> Any:
    """One malformed payload; its commandId is unique (`n`) unless the mutation hits it."""
    cmd = copy.deepcopy(command)
    cmd["commandId"] = f"fuzz-{n}-{rng.randrange(10**9)}"
    if rng.random() < 0.03:
        return rng.choice(NASTY_VALUES[:10])  # not even an object
    for _ in range(rng.randint(1, 3)):
        paths = _paths(cmd)
        if not paths:
            break
        path = rng.choice(paths)
        parent: Any = cmd
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        roll = rng.random()
        if roll < 0.25 and isinstance(parent, dict):
            del parent[last]
        elif roll < 0.35 and isinstance(parent, dict):
            parent[rng.choice(["extra", "\ud800", "__proto__", "type"])] = rng.choice(NASTY_VALUES)
        else:
            parent[last] = rng.choice(NASTY_VALUES)
    return cmd


def fuzzed_commands(seed: int, count: int, thread_id: str) -> list[Any]:
    rng = random.Random(seed)
    bases = base_commands(thread_id)
    return [mutate(rng, rng.choice(bases), n) for n in range(count)]
