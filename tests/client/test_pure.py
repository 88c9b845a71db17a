"""The client's pure pieces: backoff schedule, token handling, command outcome classification."""

from __future__ import annotations

import logging
import pickle

import pytest

from t3tui.client.backoff import DEFAULT_DELAYS, Backoff
from t3tui.client.errors import ConnectionLost, RpcFailure
from t3tui.client.outcome import Accepted, Rejected, Unknown, accepted, from_error, new_command_id
from t3tui.client.secret import Secret, Target, TargetError, normalize_url, resolve_target

TOKEN = "t3-very-secret-token-123"


# -- backoff -----------------------------------------------------------------------------


def test_backoff_follows_0_1_2_4_8_then_keeps_retrying_at_8() -> None:
    backoff = Backoff()
    assert [backoff.delay(n) for n in range(1, 9)] == [0, 1, 2, 4, 8, 8, 8, 8]
    assert backoff.delay(10_000) == 8


def test_backoff_is_configurable_and_validated() -> None:
    assert Backoff((0.01, 0.02)).delay(5) == 0.02
    assert [Backoff.fast().delay(n) for n in range(1, 6)] == [d / 100 for d in DEFAULT_DELAYS]
    with pytest.raises(ValueError):
        Backoff(())
    with pytest.raises(ValueError):
        Backoff((1.0, -1.0))
    with pytest.raises(ValueError):
        Backoff().delay(0)


# -- secrets and targets -------------------------------------------------------------------


def test_secret_never_shows_the_token(caplog: pytest.LogCaptureFixture) -> None:
    secret = Secret(TOKEN)
    target = Target("http://h:1", secret)
    caplog.set_level(logging.DEBUG)
    logging.getLogger("t").info("target %s %r %s", target, target, secret)
    shown = [repr(secret), str(secret), f"{secret}", f"{secret!r}", repr(target), str(target)]
    assert all(TOKEN not in text for text in [*shown, caplog.text])
    assert secret.reveal() == TOKEN
    with pytest.raises(TypeError):
        pickle.dumps(secret)


def test_flags_win_over_t3tui_env_which_wins_over_t3code_env() -> None:
    env = {"T3TUI_URL": "a:1", "T3CODE_URL": "b:2", "T3TUI_TOKEN": "x", "T3CODE_TOKEN": "y"}
    assert resolve_target(None, None, env) == Target("http://a:1", Secret("x"))
    assert resolve_target("c:3", "z", env) == Target("http://c:3", Secret("z"))
    only_t3code = {"T3CODE_URL": "b:2", "T3CODE_TOKEN": "y"}
    assert resolve_target(None, None, only_t3code) == Target("http://b:2", Secret("y"))


def test_missing_url_or_token_says_which_and_how() -> None:
    with pytest.raises(TargetError, match=r"server URL.*and a token"):
        resolve_target(None, None, {})
    with pytest.raises(TargetError, match="T3TUI_TOKEN") as info:
        resolve_target("h:1", None, {})
    assert "URL" not in str(info.value).split("need", 1)[1]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("127.0.0.1:3773", "http://127.0.0.1:3773"),
        ("http://h:1/", "http://h:1"),
        ("ws://h:1/ws", "http://h:1"),
        ("wss://h.example/t3/ws", "https://h.example/t3"),
    ],
)
def test_urls_are_normalized_to_the_http_base(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_ws_url_follows_the_scheme() -> None:
    assert Target("http://h:1", Secret("x")).ws_url == "ws://h:1/ws"
    assert Target("https://h/t3", Secret("x")).ws_url == "wss://h/t3/ws"


def test_a_non_http_url_is_refused_clearly() -> None:
    with pytest.raises(TargetError, match="not a server URL"):
        normalize_url("ftp://h:1")


# -- command outcomes ----------------------------------------------------------------------


def test_success_is_accepted_with_its_sequence() -> None:
    assert accepted({"sequence": 9011}) == Accepted(9011)
    assert accepted(None) == Accepted(None)


def test_dispatch_error_is_rejected_verbatim() -> None:
    error = {
        "_tag": "OrchestrationV2DispatchCommandError",
        "message": "Thread t has active or blocked work and cannot be settled.",
        "detail": "run r is running",
    }
    outcome = from_error(RpcFailure(error["message"], error))
    assert outcome == Rejected(error["message"], "run r is running")


def test_missing_scope_is_rejected_naming_the_scope() -> None:
    error = {"_tag": "EnvironmentAuthorizationError", "message": "missing scope",
             "requiredScope": "orchestration:operate"}
    assert from_error(RpcFailure("missing scope", error)) == Rejected(
        "missing scope", "orchestration:operate"
    )


def test_a_lost_socket_or_an_interrupt_leaves_the_outcome_unknown() -> None:
    assert isinstance(from_error(ConnectionLost("socket closed")), Unknown)
    assert isinstance(from_error(RpcFailure("interrupted", {"_tag": "Interrupt"})), Unknown)


def test_command_ids_are_fresh() -> None:
    assert len({new_command_id() for _ in range(100)}) == 100


@pytest.mark.parametrize("raw", ["http://[::1", "http://h:abc", "http://h:99999"])
def test_an_unparsable_url_or_port_is_refused_clearly(raw: str) -> None:
    with pytest.raises(TargetError, match="not a server URL"):
        resolve_target(raw, "tok", {})


@pytest.mark.parametrize("token", ["  ", "t\u00f8k", "a\x00b"])
def test_a_token_no_header_can_carry_is_refused_without_quoting_it(token: str) -> None:
    with pytest.raises(TargetError) as info:
        resolve_target("h:1", token, {})
    assert token.strip() == "" or token not in str(info.value)
    assert resolve_target("h:1", " tok\n", {}).token == Secret("tok")
