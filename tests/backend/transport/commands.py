"""Command payloads for transport tests, exactly as a client puts them on the wire."""

from __future__ import annotations

import itertools
from typing import Any

PROJECT_ID = "project-1"
MODEL = {"instanceId": "codex", "model": "gpt-5"}

_ids = itertools.count(1)


def fresh_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


def thread_create(
    thread_id: str, *, command_id: str | None = None, title: str = "T"
) -> dict[str, Any]:
    return {
        "type": "thread.create",
        "commandId": command_id or fresh_id("c-create"),
        "createdBy": "user",
        "creationSource": "web",
        "threadId": thread_id,
        "projectId": PROJECT_ID,
        "title": title,
        "modelSelection": MODEL,
        "runtimeMode": "full-access",
        "interactionMode": "default",
        "branch": None,
        "worktreePath": None,
    }


def message(thread_id: str, text: str, *, command_id: str | None = None) -> dict[str, Any]:
    return {
        "type": "message.dispatch",
        "commandId": command_id or fresh_id("c-msg"),
        "createdBy": "user",
        "creationSource": "web",
        "threadId": thread_id,
        "messageId": fresh_id("msg"),
        "text": text,
        "attachments": [],
        "dispatchMode": {"type": "start_immediately"},
    }


def settle(thread_id: str, *, command_id: str | None = None) -> dict[str, Any]:
    return {
        "type": "thread.settle",
        "commandId": command_id or fresh_id("c-settle"),
        "threadId": thread_id,
    }
