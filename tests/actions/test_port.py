"""Every port the actions run on offers the whole `Port`: the app's sources (one server,
several environments, read-only frames and replays) and the headless `SessionPort`. A source
whose method lacks a parameter the actions pass fails here, not as "outcome unknown:
TypeError" on a user's screen."""

from __future__ import annotations

import inspect

import pytest

from t3tui.actions import Port, SessionPort
from t3tui.tui.sources.environments import MultiSource
from t3tui.tui.sources.frames import FrameSource
from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.sources.source import LiveSource

PORT_METHODS = [n for n, v in vars(Port).items() if callable(v) and not n.startswith("_")]


def test_the_port_names_what_the_actions_use() -> None:
    assert set(PORT_METHODS) == {"dispatch", "wait_until", "open_thread", "close_thread",
                                 "checkin", "settle_risks", "live_sessions"}
    assert isinstance(vars(Port)["supervisor"], property)


@pytest.mark.parametrize("port", [SessionPort, LiveSource, MultiSource, FrameSource,
                                  ReplaySource], ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", PORT_METHODS)
def test_every_port_takes_every_parameter_the_actions_pass(port: type, method: str) -> None:
    wanted = inspect.signature(getattr(Port, method)).parameters
    given = inspect.signature(getattr(port, method)).parameters
    assert inspect.iscoroutinefunction(getattr(port, method)) == \
        inspect.iscoroutinefunction(getattr(Port, method))
    missing = [name for name in wanted if name not in given
               and not any(p.kind is p.VAR_KEYWORD for p in given.values())]
    assert missing == [], f"{port.__name__}.{method} lacks {missing}"
    for name, param in given.items():  # nothing it requires that the actions do not pass
        if param.default is param.empty and param.kind not in (param.VAR_POSITIONAL,
                                                                 param.VAR_KEYWORD):
            assert name in wanted, f"{port.__name__}.{method} requires {name}"
