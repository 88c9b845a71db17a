"""Wire model base: camelCase aliases, kept extras, exact encoding, one error type."""

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal, Self, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    PlainSerializer,
    Strict,
    Tag,
    ValidationError,
)
from pydantic.alias_generators import to_camel

_MAX_REPORTED_ERRORS = 3


class ProtocolError(Exception):
    """The one error any decoder raises for malformed input."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def format_ts(value: datetime) -> str:
    """Encode as `2026-10-04T12:00:00.000Z` (UTC, milliseconds); naive means UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    elif value.utcoffset():
        value = value.astimezone(UTC)
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}T"
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}."
        f"{value.microsecond // 1000:03d}Z"
    )


def _to_utc(value: datetime) -> datetime:
    # Cheap on the hot path: wire timestamps are already UTC, so this is one attribute check.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    if value.utcoffset():
        return value.astimezone(UTC)
    return value


def parse_ts(text: str) -> datetime:
    """Parse an ISO-8601 timestamp into a UTC-aware datetime (raises `ProtocolError`)."""
    try:
        return _to_utc(datetime.fromisoformat(text))
    except (TypeError, ValueError, OverflowError) as exc:
        raise ProtocolError(f"invalid timestamp {text!r}: {exc}") from exc


Timestamp = Annotated[
    datetime,
    AfterValidator(_to_utc),
    PlainSerializer(format_ts, return_type=str, when_used="json"),
]
"""A UTC-aware datetime that encodes as `2026-10-04T12:00:00.000Z`."""


EventSequence = Annotated[int, Strict()]
"""An event-store position. Strict: a cursor sent as a string or float is a broken server."""


def _describe_validation(name: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False, include_input=False)[:_MAX_REPORTED_ERRORS]:
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{where}: {err['msg']}")
    more = exc.error_count() - len(parts)
    suffix = f" (+{more} more)" if more > 0 else ""
    return f"invalid {name}: " + "; ".join(parts) + suffix


def type_name(obj: Any) -> str:
    """JSON-ish name of a value's type, for error messages."""
    if obj is None:
        return "null"
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(obj), type(obj).__name__
    )


def validate_as(name: str, validate: Any, obj: Any) -> Any:
    """Run a pydantic validator; any failure becomes one readable `ProtocolError`."""
    try:
        return validate(obj)
    except ValidationError as exc:
        raise ProtocolError(_describe_validation(name, exc)) from exc
    except ProtocolError:
        raise
    except Exception as exc:  # e.g. OverflowError from extreme timestamps
        raise ProtocolError(f"invalid {name}: {exc}") from exc


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def parse_json(text: str | bytes | bytearray) -> Any:
    """`json.loads` that raises `ProtocolError` on anything unparsable (NaN/Infinity included)."""
    try:
        if isinstance(text, str):  # every frame: one decoder, not one built per call
            return _DECODER.decode(text)
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, TypeError, RecursionError) as exc:
        raise ProtocolError(f"frame is not valid JSON: {exc}") from exc


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_frame(text: str) -> bytes:
    """A JSON frame as UTF-8 for a text websocket frame. JSON may carry a lone surrogate (a
    hostile thread id, a stored title), which UTF-8 cannot: inside a JSON string, the only
    place one can be, it is written as its exact JSON escape `\\udXXX`, so the frame is the
    same JSON value and never fails the socket (websockets would, encoding it in `send`)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        escaped = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        return escaped.encode("utf-8")


def dumps(obj: Any) -> str:
    """Compact JSON, UTF-8 kept as is."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _open_enum(annotation: Any) -> frozenset[str] | None:
    """The known values of an open enum field (`Literal[...] | str`), else None."""
    args = get_args(annotation)
    if str not in args:
        return None
    known = {v for a in args if get_origin(a) is Literal for v in get_args(a) if isinstance(v, str)}
    return frozenset(known) or None


class WireModel(BaseModel):
    """Base of every wire shape.

    Decoded models emit exactly the keys that were on the wire (plus kept unknown keys).
    Constructed models emit every field except those listed in `wire_optional`, so a
    message built in code carries its required keys (`headers: []`, nullable `null`s).

    Enum fields are open (`Literal[...] | str`) so a newer server's value decodes; a model
    built in code refuses a value outside the contract's list (`ProtocolError`), so t3tui
    never sends one.

    With `wire_none_is_absent` (what t3tui sends: commands, launch input), an optional field
    given None is left out, as the contract's `Schema.optional(T)` refuses a null; only the
    fields in `wire_nullable` (`Schema.optional(Schema.NullOr(T))`) send an explicit null.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        protected_namespaces=(),
    )

    wire_optional: ClassVar[frozenset[str]] = frozenset()
    _emit_always: ClassVar[frozenset[str]] = frozenset()
    _open_enums: ClassVar[dict[str, frozenset[str]]] = {}
    wire_none_is_absent: ClassVar[bool] = False
    wire_nullable: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, /, **data: Any) -> None:
        super().__init__(**data)
        fields_set = self.__pydantic_fields_set__
        fields_set.update(self._emit_always)
        if self.wire_none_is_absent:
            for name in list(fields_set):
                if (name not in self._emit_always and name not in self.wire_nullable
                        and getattr(self, name, None) is None):
                    fields_set.discard(name)
        for name, known in self._open_enums.items():
            value = getattr(self, name)
            if isinstance(value, str) and value not in known:
                raise ProtocolError(
                    f"{type(self).__name__}.{name}: {value!r} is not a value of the V2 "
                    f"contract (one of: {', '.join(sorted(known))}); refusing to send it"
                )

    # Pydantic calls a custom __init__ while validating nested models too, which would mark
    # decoded fields as set and break exact round trips. This flag (what BaseModel.__init__
    # itself carries) keeps our __init__ for code construction only; the round-trip tests
    # fail loudly if a pydantic upgrade changes that.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        optional: set[str] = set()
        for klass in cls.__mro__:
            optional.update(vars(klass).get("wire_optional", ()))
        cls._emit_always = frozenset(cls.model_fields) - optional
        cls._open_enums = {
            name: known
            for name, field in cls.model_fields.items()
            if (known := _open_enum(field.annotation)) is not None
        }

    @classmethod
    def from_wire(cls, obj: Any) -> Self:
        """Decode an already-parsed JSON value (raises `ProtocolError`)."""
        return validate_as(cls.__name__, cls.model_validate, obj)

    def to_wire(self) -> dict[str, Any]:
        """Encode to a JSON-ready dict with camelCase keys."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


UNKNOWN_TAG = "__unknown__"


def tagged_union(key: str, variants: Mapping[str, type[BaseModel]], unknown: type[BaseModel]) -> Any:
    """A union dispatched on `key` by dict lookup; unrecognised tags decode as `unknown`."""

    def pick(value: Any) -> str:
        tag = value.get(key) if isinstance(value, dict) else getattr(value, key, None)
        if isinstance(tag, str) and tag in variants:
            return tag
        return UNKNOWN_TAG

    members = tuple(Annotated[cls, Tag(tag)] for tag, cls in variants.items())
    members += (Annotated[unknown, Tag(UNKNOWN_TAG)],)
    return Annotated[Union[members], Discriminator(pick)]  # noqa: UP007
