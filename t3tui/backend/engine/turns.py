"""A provider turn in the orchestration: where its notifications land (`TurnBinding`) and how
its progress (items, messages, approval requests, token heartbeats) is recorded as events.

`RunManager` (runs.py) owns the run lifecycle and the bindings; it inherits these recorders.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.core import Batch, Core
from t3tui.backend.engine.ids import new_id

HEARTBEAT_SECONDS = 1.0
ITEM_TERMINAL = frozenset({"completed", "failed", "cancelled", "interrupted"})


@dataclass
class TurnBinding:
    """Where a provider turn's notifications land in the orchestration."""

    thread_id: str
    run_id: str
    attempt_id: str
    root_node_id: str
    provider_turn_id: str
    provider_thread_id: str
    instance: str
    session_id: str
    native_turn: str
    driver: str = ""
    scope_id: str = ""
    tokens: int = 0
    last_heartbeat: float = 0.0
    requests: dict[str, str] = field(default_factory=dict)  # request id -> native request ref

class TurnProgress:
    """The in-turn notifications of a bound provider turn, recorded as one batch each."""

    core: Core

    def _item_ordinal(self, thread_id: str, item_id: str) -> int:
        items = self.core.threads[thread_id].coll["turnItems"]
        existing = items.get(item_id)
        return existing["ordinal"] if existing else len(items) + 1

    def _on_item(self, binding: TurnBinding, data: dict[str, Any]) -> None:
        fields = {k: v for k, v in data.items() if k not in ("itemRef", "type", "title", "status")}
        item_id = f"item-{binding.provider_turn_id}-{data['itemRef']}"
        status = data.get("status", "running")
        state = self.core.threads[binding.thread_id]
        with self.core.batch() as b:
            now = self.core.now()
            previous = state.get("turnItems", item_id)
            item = entities.turn_item(
                item_id=item_id, item_type=data["type"], thread_id=binding.thread_id,
                run_id=binding.run_id, ordinal=self._item_ordinal(binding.thread_id, item_id),
                status=status, now=now, fields=fields, title=data.get("title"),
                provider_thread_id=binding.provider_thread_id,
                provider_turn_id=binding.provider_turn_id, node_id=binding.root_node_id,
                native_item_ref=entities.provider_ref(binding.driver, data["itemRef"]),
                completed=status in ITEM_TERMINAL)
            if previous is not None:
                item["startedAt"] = previous["startedAt"]
            b.add(binding.thread_id, "turn-item.updated", item, run_id=binding.run_id)
            self._heartbeat(b, binding, len(str(fields.get("output", ""))) // 4)

    def _heartbeat(self, batch: Batch, binding: TurnBinding, tokens: int) -> None:
        binding.tokens = max(binding.tokens, tokens)
        now = asyncio.get_running_loop().time()
        if now - binding.last_heartbeat < HEARTBEAT_SECONDS:
            return
        binding.last_heartbeat = now
        pturn = self.core.threads[binding.thread_id].get("providerTurns", binding.provider_turn_id)
        if pturn is not None and pturn["status"] == "running":
            usage = {"usedTokens": binding.tokens, "updatedAt": self.core.now()}
            batch.add(binding.thread_id, "provider-turn.updated", {**pturn, "tokenUsage": usage},
                      run_id=binding.run_id)

    def _on_message(self, binding: TurnBinding, data: dict[str, Any]) -> None:
        message_id = f"msg-{binding.provider_turn_id}-{data['messageRef']}"
        with self.core.batch() as b:
            now = self.core.now()
            b.add(binding.thread_id, "message.updated", entities.message(
                thread_id=binding.thread_id, message_id=message_id, role="assistant",
                text=data["text"], created_by="agent", creation_source="provider",
                run_id=binding.run_id, now=now, streaming=bool(data.get("streaming")),
                node_id=binding.root_node_id), run_id=binding.run_id)
            item_id = f"item-{message_id}"
            b.add(binding.thread_id, "turn-item.updated", entities.turn_item(
                item_id=item_id, item_type="assistant_message", thread_id=binding.thread_id,
                run_id=binding.run_id, ordinal=self._item_ordinal(binding.thread_id, item_id),
                status="completed", now=now, completed=True,
                fields={"messageId": message_id, "text": data["text"], "streaming": False},
                provider_thread_id=binding.provider_thread_id,
                provider_turn_id=binding.provider_turn_id, node_id=binding.root_node_id),
                run_id=binding.run_id)
            self._heartbeat(b, binding, binding.tokens + len(data["text"]) // 4 + 1)

    def _on_request(self, binding: TurnBinding, data: dict[str, Any]) -> None:
        request_id = new_id("rr")
        binding.requests[request_id] = data["requestRef"]
        with self.core.batch() as b:
            now = self.core.now()
            node = entities.node(thread_id=binding.thread_id, run_id=binding.run_id,
                                 kind="approval_request", status="waiting", now=now,
                                 parent_node_id=binding.root_node_id,
                                 root_node_id=binding.root_node_id,
                                 provider_turn_id=binding.provider_turn_id,
                                 runtime_request_id=request_id)
            b.add(binding.thread_id, "node.updated", node, run_id=binding.run_id,
                  node_id=node["id"])
            b.add(binding.thread_id, "runtime-request.updated", {
                "id": request_id, "nodeId": node["id"], "providerTurnId": binding.provider_turn_id,
                "nativeRequestRef": entities.provider_ref(binding.driver, data["requestRef"]),
                "kind": data.get("requestKind", "command"),
                "status": "pending",
                "responseCapability": {"type": "live", "providerSessionId": binding.session_id},
                "createdAt": now, "resolvedAt": None}, run_id=binding.run_id)
            item_id = f"item-{request_id}"
            b.add(binding.thread_id, "turn-item.updated", entities.turn_item(
                item_id=item_id, item_type="approval_request", thread_id=binding.thread_id,
                run_id=binding.run_id, ordinal=self._item_ordinal(binding.thread_id, item_id),
                status="pending", now=now, node_id=node["id"], title="Approval requested",
                fields={"requestId": request_id, "requestKind": data.get("requestKind", "command"),
                        **({"prompt": data["prompt"]} if data.get("prompt") is not None else {}),
                        "options": [{"decision": "accept", "label": "Approve"},
                                    {"decision": "decline", "label": "Decline"}]},
                provider_thread_id=binding.provider_thread_id,
                provider_turn_id=binding.provider_turn_id), run_id=binding.run_id)
