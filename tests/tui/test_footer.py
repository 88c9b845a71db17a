"""The key footer: composed again only when the keys it shows change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets._footer import FooterKey

from t3tui.tui.screenshots import settled, showcase_app, steady
from t3tui.tui.widgets.footer import KeyFooter
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until

SIZE = (160, 48)


def interrupt_key(app: Any) -> FooterKey | None:
    """The footer's key for `interrupt` (None while the footer is being composed)."""
    return next((k for k in app.query(FooterKey) if k.action == "interrupt"), None)


def select_where(app: Any, tree: ThreadTree, gate: bool | None) -> None:
    """Select the first row on which `interrupt` is `gate` (None: dimmed)."""
    assert app.view is not None
    for row in app.view.rows:
        if tree.select_thread(row.id) and app.check_action("interrupt", ()) is gate:
            return
    raise AssertionError(f"no row of the showcase has interrupt {gate}")


async def test_the_footer_is_composed_again_only_when_its_keys_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual composes the footer again (every key unmounted and mounted, 20-60 ms) on each
    change of the bindings, and an app's start changes them several times (focus, the
    actions' gates as the first rows come, the width) while the snapshot is on its way. The
    same keys are not composed again; keys that change are, once."""
    composed: list[int] = []
    real = KeyFooter.compose

    def counted(self: KeyFooter) -> Iterator[Any]:
        composed.append(1)
        yield from real(self)

    monkeypatch.setattr(KeyFooter, "compose", counted)
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        select_where(app, tree, None)
        await steady(pilot)
        key = interrupt_key(app)
        assert key is not None and key.has_class("-disabled")
        before = len(composed)
        for _ in range(3):
            app.refresh_bindings()
            await pilot.pause()
        await steady(pilot)
        assert len(composed) == before, "the same keys were composed again"

        select_where(app, tree, True)
        await until(lambda: (k := interrupt_key(app)) is not None
                    and not k.has_class("-disabled"),
                    what="the footer's interrupt key on")
        await steady(pilot)
        assert len(composed) == before + 1
