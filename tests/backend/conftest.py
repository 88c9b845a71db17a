"""Every backend test also checks the frames its backend sends against T3's V2 contract.

Wire shapes are checked by `t3tui.protocol.contract` on the socket itself (see
`transport/wiretap.py`), so a flow that makes the backend send a shape a real T3 server
never sends fails here, in whichever test exercises it, instead of in a peer. Frames that
answer a test's deliberately malformed requests are not held against the backend, nor are
the frames of a test marked `serves_tampered_store` (it replays events written by hand).
"""

from collections.abc import Iterator

import pytest

from tests.backend.transport.wiretap import wire_tap


@pytest.fixture(autouse=True)
def sent_frames_follow_the_contract(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[None]:
    if request.node.get_closest_marker("serves_tampered_store"):
        yield  # it serves what the test wrote into the store, by design
        return
    with wire_tap(monkeypatch) as tap:
        yield
    problems = tap.server_problems
    assert not problems, (
        f"the backend sent {len(problems)} frame parts that break T3's V2 contract:\n"
        + "\n".join(problems[:10])
    )
