"""Native refs: `ProviderRef` objects (the V2 contract), legacy strings, malformed values."""

import pytest

from t3tui import protocol as p

REF = {"driver": "codex", "nativeId": "thr_01", "strength": "strong"}


def _pthread(ref: object) -> dict:
    return {"id": "pthread-1", "status": "active", "nativeThreadRef": ref}


def test_provider_ref_object_decodes_typed_and_round_trips() -> None:
    full = {**REF, "fingerprint": "sha:ab", "ordinal": 3}
    decoded = p.ProviderThread.from_wire(_pthread(full))
    assert isinstance(decoded.native_thread_ref, p.ProviderRef)
    assert decoded.native_thread_ref.fingerprint == "sha:ab"
    assert decoded.native_thread_id == "thr_01"
    assert decoded.to_wire() == _pthread(full)


@pytest.mark.parametrize(
    ("ref", "native_id"),
    [
        ("thr_legacy", "thr_legacy"),  # an older build's bare string
        ({"nativeId": "thr_x"}, "thr_x"),  # malformed object: kept raw, id still readable
        ({**REF, "nativeId": None}, None),  # strength "none": no native id
        (None, None),
        (42, None),
        ("", None),
    ],
)
def test_every_wire_shape_decodes_and_round_trips(ref: object, native_id: str | None) -> None:
    decoded = p.ProviderThread.from_wire(_pthread(ref))
    assert decoded.native_thread_id == native_id
    assert decoded.to_wire() == _pthread(ref)


def test_unknown_strength_is_tolerated_on_decode() -> None:
    ref = {**REF, "strength": "forensic"}
    decoded = p.ProviderTurn.from_wire({"id": "pt", "status": "running", "nativeTurnRef": ref})
    assert isinstance(decoded.native_turn_ref, p.ProviderRef)
    assert decoded.native_turn_id == "thr_01" and decoded.to_wire()["nativeTurnRef"] == ref


def test_accessors_on_every_entity_with_a_native_ref() -> None:
    turn = p.ProviderTurn.from_wire({"id": "pt", "status": "running", "nativeTurnRef": REF})
    request = p.RuntimeRequest.from_wire({"id": "rr", "status": "pending", "nativeRequestRef": REF})
    item = p.decode_turn_item({"type": "reasoning", "id": "i", "nativeItemRef": "legacy-item"})
    task = p.Subagent.from_wire({"id": "t", "status": "running", "nativeTaskRef": REF})
    assert (turn.native_turn_id, request.native_request_id) == ("thr_01", "thr_01")
    assert (item.native_item_id, task.native_task_id) == ("legacy-item", "thr_01")


def test_built_in_code_emits_the_contract_shape() -> None:
    assert p.ProviderRef.of("codex", "thr_01").to_wire() == REF
    assert p.ProviderRef.of("codex", "t", ordinal=2).to_wire() == {
        "driver": "codex", "nativeId": "t", "strength": "strong", "ordinal": 2}


def test_as_provider_ref_normalises_legacy_strings() -> None:
    legacy = p.as_provider_ref("thr_old", driver="codex")
    assert legacy is not None and legacy.to_wire() == {
        "driver": "codex", "nativeId": "thr_old", "strength": "weak"}
    assert p.as_provider_ref(REF).to_wire() == REF
    assert p.as_provider_ref(None) is None and p.as_provider_ref(7) is None
