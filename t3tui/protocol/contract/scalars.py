"""Strict scalars and the strict model base of the V2 contract's schemas.

The tolerant models of `t3tui.protocol` accept what any server build sends. These say what
the contract requires, for checking what we *send*: every required key present (a nullable
field's key too), exact types (no bool for an int, no number for a string), no unknown enum
value, no key the contract does not name. Upstream ignores unknown keys on decode; refusing
them here catches a misspelt field (`createdAt` for `capturedAt`) as a missing one would.

Idioms: `x: T` is a required key; `x: T | None` a required nullable key (`Schema.NullOr`);
`x: T = OMIT` an optional key that is never null (`Schema.optional(T)`: JSON has no
`undefined`, so an explicit null fails upstream); `x: T | None = None` is
`Schema.optional(Schema.NullOr(T))`.
"""

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, StrictStr
from pydantic.alias_generators import to_camel

OMIT: Any = None
"""Default of an optional key; the field's type excludes None, so a sent null still fails."""


def _trimmed_non_empty(value: str) -> str:
    # Schema.Trim trims on decode, then isNonEmpty: only blank strings fail upstream.
    if not value.strip():
        raise ValueError("must be a non-empty string once trimmed")
    return value


NonEmpty = Annotated[StrictStr, AfterValidator(_trimmed_non_empty)]
"""`TrimmedNonEmptyString` and every branded id built on it (ThreadId, RunId, ...)."""

Slug = Annotated[StrictStr, Field(pattern=r"^[a-zA-Z][a-zA-Z0-9_-]*$", max_length=64)]
"""`ProviderDriverKind` / `ProviderInstanceId`: a slug of at most 64 characters."""

PositiveInt = Annotated[StrictInt, Field(ge=1)]
NonNegativeInt = Annotated[StrictInt, Field(ge=0)]

UtcTime = Annotated[
    StrictStr, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$")
]
"""`DateTimeUtcFromString`, as we encode it: ISO-8601 in UTC with a `Z`."""

IntString = Annotated[StrictStr, Field(pattern=r"^(0|[1-9][0-9]*)$")]
"""An RPC request id: upstream's server converts it with `BigInt(id)`."""


class Strict(BaseModel):
    """Base of the strict contract models: camelCase keys only, unknown keys refused."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=False,
        extra="forbid",
        strict=True,
        frozen=True,
        protected_namespaces=(),
    )
