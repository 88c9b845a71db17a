"""Counting the calls a test says must not (or must) happen: the real method still runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str,
          noted: Callable[..., Any]) -> list[Any]:
    """What `noted` makes of each call's arguments to `owner.name`, in order, from now until
    `monkeypatch` is undone; a method spied on its class gets `self` first."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def spied(*args: Any, **kwargs: Any) -> Any:
        seen.append(noted(*args, **kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spied)
    return seen
