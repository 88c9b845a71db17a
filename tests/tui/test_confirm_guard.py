"""A confirmation that opens by itself (the settle question appears only after its check of
shared sessions) must not be answered by keys the user was already typing: enter or space
that arrive before the question has been on screen for `ConfirmScreen.ARM_S` do nothing (a
bell), as browsers hold a permission prompt's buttons for a moment. A click, and a key once
the question is armed, answer it as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from t3tui.tui.screens.modals import ConfirmScreen
from t3tui.tui.screenshots import showcase_app
from tests.tui.test_app_frames import id_of, select, settled
from tests.tui.waiting import until


async def ask_to_settle(pilot: Any) -> str:
    """Select "Scratch", press s, and wait for its settle question and its buttons."""
    app = pilot.app
    await settled(pilot)
    scratch = id_of(app, "Scratch")
    await select(pilot, scratch)
    await pilot.press("s")
    await until(lambda: isinstance(app.screen, ConfirmScreen), what="the settle question")
    await until(lambda: app.screen.query("#choice-0") and app.screen.focused is not None,
                what="its buttons, the first focused")
    return scratch


@pytest.mark.parametrize("key", ["enter", "space"])
async def test_a_key_typed_as_the_question_opens_does_not_answer_it(
        monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    monkeypatch.setattr(ConfirmScreen, "ARM_S", 60.0, raising=False)  # never armed in this test
    app = showcase_app()
    async with app.run_test(size=(160, 48)) as pilot:
        scratch = await ask_to_settle(pilot)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen), "the key answered the question"
        assert "settle" not in app.statuses.get(scratch, {})
        await pilot.click("#choice-0")  # a deliberate click still answers it
        await until(lambda: "settle" in app.statuses.get(scratch, {}), what="the settle")


async def test_once_armed_enter_answers_the_question(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ConfirmScreen, "ARM_S", 0.0, raising=False)
    app = showcase_app()
    async with app.run_test(size=(160, 48)) as pilot:
        scratch = await ask_to_settle(pilot)
        await pilot.press("enter")
        await until(lambda: "settle" in app.statuses.get(scratch, {}), what="the settle")
