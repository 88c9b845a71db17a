"""The fast paths the benchmarks brought into other layers write exactly what the plain
paths write."""

from __future__ import annotations

import json

from benchmarks.fanout import one_chunk_per_event
from t3tui.backend.sink import EncodedItem, encode_chunk
from t3tui.backend.store import StoredEvent
from t3tui.backend.subscriptions import event_item
from t3tui.protocol.base import dumps
from t3tui.protocol.rpc import Chunk, decode_server_frame, encode_message

EVENT = {"id": "evt-1", "threadId": "thread-1", "runId": "run-1",
         "occurredAt": "2026-10-04T12:00:00.000Z", "type": "message.updated",
         "payload": {"id": "msg-1", "threadId": "thread-1", "role": "assistant",
                     "text": "naïve [bold]x[/bold] \u2028 \"quoted\"", "attachments": [],
                     "streaming": True, "createdAt": "2026-10-04T12:00:00.000Z",
                     "updatedAt": "2026-10-04T12:00:00.000Z"}}


def test_a_spliced_chunk_is_byte_identical_to_the_encoded_one() -> None:
    plain = {"kind": "synchronized"}
    item = {"kind": "event", "sequence": 7, "event": EVENT}
    spliced = encode_chunk("12", [plain, EncodedItem(dumps(item))])
    assert spliced == encode_message(Chunk(request_id="12", values=[plain, item]))
    (decoded,) = decode_server_frame(spliced)
    assert decoded.values == [plain, item]


def test_one_stored_event_is_encoded_once_for_every_subscriber() -> None:
    stored = StoredEvent.from_raw(7, None, EVENT)
    first, second = event_item(stored), event_item(stored)
    assert first is second
    assert first == dumps({"kind": "event", "sequence": 7, "event": EVENT})
    other = event_item(StoredEvent.from_raw(8, None, EVENT))
    assert other is not first and '"sequence":8' in other


def test_a_live_event_is_spliced_from_the_text_the_store_wrote(tmp_path) -> None:
    from t3tui.backend.store import EventStore

    store = EventStore.open(tmp_path)
    odd = {**EVENT, "id": "evt-2", "payload": {**EVENT["payload"], "text": "lone \ud800 half"}}
    plain, surrogate = store.append(None, [EVENT, odd])
    assert plain.text is not None and surrogate.text is None  # SQLite's UTF-8 cannot hold it
    assert event_item(plain) == dumps({"kind": "event", "sequence": 1, "event": EVENT})
    assert event_item(surrogate) == dumps({"kind": "event", "sequence": 2, "event": odd})
    # what was stored reads back as the same events, typed on demand
    assert [s.wire for s in store.events_after(0)] == [EVENT, odd]
    assert plain.event.payload.text == EVENT["payload"]["text"]


async def test_rows_added_between_existing_ones_land_in_view_order() -> None:
    from textual.app import App, ComposeResult

    from benchmarks.world import WorldSpec, build_world
    from t3tui.model import Supervisor
    from t3tui.tui.widgets.thread_tree import ThreadTree

    world = build_world(WorldSpec(threads=14, events=0, parents=2, children=2))
    sup = Supervisor()
    sup.apply_shell(world.shell_snapshot)
    for tid, item in world.thread_snapshots.items():
        sup.apply_thread(tid, item)
    view = sup.view(world.end)
    ids = [r.id for r in view.rows]
    assert any(r.depth > 0 for r in view.rows)

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield ThreadTree()

    def order(tree: ThreadTree) -> list[str]:
        out, stack = [], list(reversed(tree.root.children))
        while stack:
            node = stack.pop()
            out.append(node.data)
            stack.extend(reversed(node.children))
        return out

    app = One()
    async with app.run_test():
        tree = app.query_one(ThreadTree)
        # every third row first (with the parents of the children kept), then the rest,
        # which lands in between
        first = set(ids[::3]) | {r.parent_id for r in view.rows if r.id in ids[::3] and r.depth}
        tree.sync(view, world.end, shown={i for i in first if i})
        assert order(tree) == [i for i in ids if i in first]
        tree.sync(view, world.end)
        assert order(tree) == ids


def test_one_chunk_per_event_keeps_every_value_in_order() -> None:
    """The fan-out benchmark's bare burst: the backend's frames re-framed one value a Chunk."""
    frames = ['{"_tag":"Chunk","requestId":"2","values":[{"kind":"event","n":1},'
              '{"kind":"event","n":2}]}',
              '{"_tag":"Chunk","requestId":"3","values":[{"kind":"event","n":3}]}',
              '{"_tag":"Exit","requestId":"4"}']
    out = one_chunk_per_event(frames)
    assert [json.loads(f).get("values") for f in out] == [
        [{"kind": "event", "n": 1}], [{"kind": "event", "n": 2}], [{"kind": "event", "n": 3}],
        None]
    assert [json.loads(f)["requestId"] for f in out] == ["2", "2", "3", "4"]
    assert sum(f.count('"kind":"event"') for f in out) == 3  # what the clients count
