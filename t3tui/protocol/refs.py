"""Native refs: the provider's own id of a thread, turn, item, request or task.

The V2 contract types `nativeThreadRef`, `nativeTurnRef`, `nativeItemRef`, `nativeRequestRef`
and `nativeTaskRef` as `OrchestrationV2ProviderRef | null`. Builds before the correction sent
a bare string; a decoder keeps that string as it came (exact round trip) and a malformed
object as a raw dict, so a strange ref never fails a whole snapshot. Read the id through
`native_id_of` (or the entities' `native_*_id` properties), whatever the wire shape.
"""

from typing import Annotated, Any, Union

from pydantic import Field

from .base import WireModel
from .enums import NativeRefStrength


class ProviderRef(WireModel):
    """`{driver, nativeId, strength, fingerprint?, ordinal?}` (`OrchestrationV2ProviderRef`)."""

    driver: str
    native_id: str | None
    strength: NativeRefStrength | str
    fingerprint: str | None = None
    ordinal: int | None = None

    wire_optional = frozenset({"fingerprint", "ordinal"})

    @classmethod
    def of(cls, driver: str, native_id: str | None, strength: NativeRefStrength = "strong",
           **extra: Any) -> "ProviderRef":
        """Build a ref in code (keyword names as in Python: `fingerprint=`, `ordinal=`)."""
        return cls(driver=driver, native_id=native_id, strength=strength, **extra)


NativeRef = Annotated[
    Union[ProviderRef, str, Any, None],  # noqa: UP007  (left-to-right needs Union)
    Field(union_mode="left_to_right"),
]
"""A native ref as decoded: a `ProviderRef`, a legacy bare string, None, or any other value
kept raw (a malformed object stays a dict)."""


def native_id_of(ref: Any) -> str | None:
    """The provider's id inside a native ref, whatever its wire shape (None when absent)."""
    if isinstance(ref, ProviderRef):
        return ref.native_id
    if isinstance(ref, str):
        return ref or None
    if isinstance(ref, dict):
        value = ref.get("nativeId")
        return value if isinstance(value, str) and value else None
    return None


def as_provider_ref(ref: Any, driver: str | None = None) -> ProviderRef | None:
    """A native ref as a `ProviderRef`: a legacy string becomes a `weak` ref of `driver`."""
    if isinstance(ref, ProviderRef):
        return ref
    if isinstance(ref, dict):
        try:
            return ProviderRef.model_validate(ref)
        except ValueError:
            pass
    native = native_id_of(ref)
    if native is None:
        return None
    return ProviderRef(driver=driver or "unknown", native_id=native, strength="weak")
