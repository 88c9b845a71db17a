"""Under a state filter, the thread the user just acted on keeps the cursor when it stops
matching (issue 21, item 10: after answering under `@needs-input` the cursor jumped to the
environment's node)."""

from __future__ import annotations

import copy

from t3tui.tui.screenshots import NEEDS_INPUT_CHILD, environments_app, settled
from t3tui.tui.sources.frames import load_frames
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until

SIZE = (160, 48)


def answer(supervisor: object, sequence: int) -> None:
    """What the streams say once the user's answer went through: the showcase's shell row and
    request event of the thread that needs input, the request resolved."""
    frames = load_frames("showcase")
    shell = copy.deepcopy(next(
        f["item"] for f in reversed(frames) if f.get("stream") == "shell"
        and f["item"].get("thread", {}).get("id") == NEEDS_INPUT_CHILD))
    shell["sequence"] = sequence
    shell["thread"].update(pendingRuntimeRequest=None, updatedAt="2026-10-04T12:04:00.000Z")
    event = copy.deepcopy(next(
        f["item"] for f in frames
        if f.get("stream") == "thread" and f.get("threadId") == NEEDS_INPUT_CHILD
        and f["item"].get("event", {}).get("type") == "runtime-request.updated"))
    event["sequence"] = sequence + 1
    event["event"]["id"] = f"evt-{sequence}"  # a new event, not the recorded one again
    event["event"]["payload"].update(status="resolved", resolvedAt="2026-10-04T12:04:00.000Z")
    supervisor.apply_shell(shell)  # type: ignore[attr-defined]
    supervisor.apply_thread(NEEDS_INPUT_CHILD, event)  # type: ignore[attr-defined]


async def test_the_answered_thread_keeps_the_cursor_under_a_needs_input_filter() -> None:
    app = environments_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("slash", *"@needs-input", "enter")
        tree = app.query_one(ThreadTree)
        target = f"laptop:{NEEDS_INPUT_CHILD}"
        await until(lambda: target in tree.nodes, what="the laptop's thread that needs input")
        assert tree.select_thread(target)
        await pilot.pause()
        laptop = app.source.environments[0].source  # type: ignore[attr-defined]
        answer(laptop.supervisor, 10**6)
        app.refresh_view()
        await until(lambda: app.view is not None and app.view.row(target) is not None
                    and app.view.row(target).state != "needs-input", what="answered")
        await pilot.pause()
        assert tree.selected_id == target
        # once the cursor moves on, the filter holds again: the answered thread goes
        await pilot.press("down")
        app.refresh_view()
        await until(lambda: target not in tree.nodes, what="the answered row filtered out")
