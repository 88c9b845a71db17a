"""User-side messages: recording them, and the five `message.dispatch` modes (protocol §10.3)."""

from __future__ import annotations

from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.core import Batch
from t3tui.backend.engine.errors import CommandRejected
from t3tui.backend.engine.runs import RunManager

STEERABLE = frozenset({"starting", "running"})


def post_user_message(
    runs: RunManager,
    batch: Batch,
    thread_id: str,
    *,
    message_id: str,
    text: str,
    created_by: str,
    creation_source: str,
    intent: str,
    start_run: bool = True,
    front: bool = False,
    restart_of: str | None = None,
    into_run: str | None = None,
    delegated_completion: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Record a message and its timeline row; queue a run for it unless steered or deferred."""
    core = runs.core
    state = core.threads[thread_id]
    now = core.now()
    run = runs.new_run(thread_id, message_id, front=front, restart_of=restart_of) if (
        start_run and into_run is None) else None
    run_id = into_run or (run["id"] if run else None)
    batch.add(thread_id, "message.updated", entities.message(
        thread_id=thread_id, message_id=message_id, role="user", text=text,
        created_by=created_by, creation_source=creation_source, run_id=run_id, now=now,
        delegated_completion=delegated_completion), run_id=run_id)
    item_id = f"item-{message_id}"
    batch.add(thread_id, "turn-item.updated", entities.turn_item(
        item_id=item_id, item_type="user_message", thread_id=thread_id, run_id=run_id,
        ordinal=len(state.coll["turnItems"]) + 1, status="completed", now=now, completed=True,
        fields={"createdBy": created_by, "creationSource": creation_source,
                "messageId": message_id, "inputIntent": intent, "text": text,
                "attachments": []}), run_id=run_id)
    if run is not None:
        runs.create_run(batch, thread_id, run)
    return run


def dispatch_message(runs: RunManager, batch: Batch, command: dict[str, Any]) -> None:
    """`message.dispatch`: start, queue, steer, restart or defer."""
    thread_id = command["threadId"]
    state = runs.core.threads[thread_id]
    mode = command.get("dispatchMode") or {"type": "start_immediately"}
    kind = mode.get("type")
    common = {"message_id": command["messageId"], "text": command["text"],
              "created_by": command.get("createdBy", "user"),
              "creation_source": command.get("creationSource", "web"),
              "delegated_completion": command.get("delegatedCompletion")}
    busy = state.has_active_run()
    if kind == "defer_start":
        post_user_message(runs, batch, thread_id, intent="queued_turn", start_run=False, **common)
        return
    if kind in ("steer_active", "restart_active"):
        target = state.get("runs", mode.get("targetRunId"))
        if target is None:
            raise CommandRejected(
                f"Run {mode.get('targetRunId')} does not belong to thread {thread_id}.")
        if kind == "steer_active" and steer(runs, batch, thread_id, target, common):
            return
        if kind == "restart_active" and target["status"] in STEERABLE:
            runs.interrupt(batch, thread_id, target, "Restarted with a new message.")
            post_user_message(runs, batch, thread_id, intent="turn_start", front=True,
                              restart_of=target["id"], **common)
            return
    elif kind not in ("start_immediately", "queue_after_active"):
        raise CommandRejected(f"Unsupported dispatch mode {kind!r}.")
    post_user_message(runs, batch, thread_id, intent="queued_turn" if busy else "turn_start",
                      **common)


def steer(runs: RunManager, batch: Batch, thread_id: str, target: dict[str, Any],
          common: dict[str, Any]) -> bool:
    """Inject into the live turn when the provider can take it; False means "queue instead"."""
    binding = runs.binding(target["id"])
    if target["status"] not in STEERABLE or binding is None:
        return False
    provider = runs.sessions.provider_for(binding.instance)
    if not provider.config.supports_active_steering or not provider.turn_is_live(
            binding.native_turn):
        return False
    post_user_message(runs, batch, thread_id, intent="steer", into_run=target["id"], **common)
    text = common["text"]
    batch.after(lambda: provider.steer(binding.native_turn, text))
    return True
