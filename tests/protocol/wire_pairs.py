"""Walk a strict contract model and its tolerant counterpart side by side (test helper).

`Walk().pair(strict, tolerant, where)` compares two annotations: every field the strict model
names (by its wire alias) must exist in the tolerant model with a compatible type, the
tolerant field may not be required where the contract lets the key be absent, and must accept
null where the contract sends null. Nested models are paired and walked in turn; a union of
models is paired variant by variant on its discriminator (`kind`, `type`, `_tag`).

What "compatible" means: the tolerant side accepts every value the strict side accepts, and
decodes it as the same kind of thing (a model as a model, a list as a list; a UTC time string
as a datetime or a string). Enums are compared member by member: a strict `Literal` against
the tolerant `Literal` (open: `Literal[...] | str`) must list the same values; a tolerant plain
`str` where the contract has an enum is reported apart (`open_text`), for the test to list.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from t3tui.protocol.contract.scalars import UtcTime


def _patterns(metadata: tuple[Any, ...]) -> set[str]:
    """The regex patterns among `Annotated` metadata (direct, or inside a `Field(...)`)."""
    found = set()
    for m in metadata:
        inner = m.metadata if isinstance(m, FieldInfo) else [m]
        found |= {p for x in inner if isinstance(p := getattr(x, "pattern", None), str)}
    return found


_UTC_PATTERN = _patterns(get_args(UtcTime)[1:]).pop()


@dataclass(frozen=True)
class Shape:
    """One member of a (flattened) annotation: `kind` is none, any, lit, str, time, int,
    bool, float, datetime, model, list, dict or other."""

    kind: str
    values: frozenset[Any] = frozenset()  # lit: its members
    model: type[BaseModel] | None = None
    item: Any = None  # list: the element annotation
    tag: str | None = None  # model: a pydantic `Tag` it carries in a tagged union
    discriminator: str | None = None  # the union's, when it names one


def _is_union(ann: Any) -> bool:
    return get_origin(ann) in (Union, types.UnionType)


def shapes(ann: Any, metadata: tuple[Any, ...] = ()) -> list[Shape]:
    """The members of an annotation, unions flattened and `Annotated` read."""
    discriminator = None
    tag = None
    if get_origin(ann) is Annotated:
        base, *extra = get_args(ann)
        return shapes(base, metadata + tuple(extra))
    for m in metadata:
        if isinstance(m, FieldInfo) and isinstance(m.discriminator, str):
            discriminator = m.discriminator
        if type(m).__name__ == "Tag":
            tag = m.tag
    if _is_union(ann):
        found = []
        for member in get_args(ann):
            found += shapes(member)
        if discriminator:
            found = [Shape(s.kind, s.values, s.model, s.item, s.tag, discriminator) for s in found]
        return found
    if ann is type(None) or ann is None:
        return [Shape("none")]
    if ann is Any:
        return [Shape("any")]
    if get_origin(ann) is Literal:
        return [Shape("lit", frozenset(get_args(ann)))]
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [Shape("model", model=ann, tag=tag)]
    origin = get_origin(ann) or ann
    if origin in (list, tuple, set, frozenset):
        args = [a for a in get_args(ann) if a is not Ellipsis]
        return [Shape("list", item=args[0] if len(set(map(repr, args))) == 1 else Any)]
    if origin is dict:
        return [Shape("dict")]
    if ann is str:
        timed = _UTC_PATTERN in _patterns(metadata)
        return [Shape("time" if timed else "str")]
    names = {bool: "bool", int: "int", float: "float"}
    if ann in names:
        return [Shape(names[ann])]
    if getattr(ann, "__name__", "") == "datetime":
        return [Shape("datetime")]
    return [Shape("other")]


def field_annotation(f: FieldInfo) -> Any:
    """The whole annotation: pydantic keeps a field's own `Annotated` parts apart."""
    metadata = [*f.metadata]
    if f.discriminator is not None:
        metadata.append(FieldInfo(discriminator=f.discriminator))
    return Annotated[(f.annotation, *metadata)] if metadata else f.annotation


def wire_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    return {(f.alias or name): f for name, f in model.model_fields.items()}


def tags(model: type[BaseModel], key: str) -> set[Any]:
    """The discriminator values a union variant answers to (its `key` field's Literal)."""
    f = wire_fields(model).get(key) or model.model_fields.get(key)  # by alias or by name
    if f is None:
        return set()
    found = {v for s in shapes(field_annotation(f)) if s.kind == "lit" for v in s.values}
    if not found and isinstance(f.default, str):
        found.add(f.default)
    return found


# what each strict kind may decode as on the tolerant side
_ACCEPTS = {
    "str": {"str"},
    "time": {"datetime", "str"},
    "int": {"int", "float"},
    "bool": {"bool"},
    "float": {"float"},
    "dict": {"dict"},
    "other": {"other"},
}


@dataclass
class Walk:
    problems: list[str] = field(default_factory=list)
    open_text: set[str] = field(default_factory=set)  # where: a contract enum decoded as str
    untyped: set[str] = field(default_factory=set)  # where: a contract model decoded as Any
    text_as_time: set[str] = field(default_factory=set)  # where: contract text read as a time
    strict_seen: set[type[BaseModel]] = field(default_factory=set)
    _paired: set[tuple[type[BaseModel], type[BaseModel]]] = field(default_factory=set)
    _named: dict[type[BaseModel], set[str]] = field(default_factory=dict)  # tolerant: keys seen

    @property
    def tolerant_only(self) -> set[str]:
        """"Model.key" of tolerant fields that no contract model paired with it names."""
        return {f"{model.__name__}.{key}" for model, named in self._named.items()
                for key in wire_fields(model) if key not in named}

    def pair(self, strict: Any, tolerant: Any, where: str) -> None:
        """Compare two annotations (or two model classes)."""
        s_all, t_all = shapes(strict), shapes(tolerant)
        if any(t.kind == "any" for t in t_all):
            if any(s.kind == "model" for s in s_all):
                self.untyped.add(where)
            return
        t_kinds = {t.kind for t in t_all}
        if any(s.kind == "none" for s in s_all) and "none" not in t_kinds:
            self.problems.append(f"{where}: the contract allows null, the tolerant model does not")
        self._enums(s_all, t_all, where)
        for s in s_all:
            if s.kind == "str" and "datetime" in t_kinds and "str" not in t_kinds:
                self.text_as_time.add(where)
            elif s.kind in _ACCEPTS and not _ACCEPTS[s.kind] & t_kinds:
                self.problems.append(f"{where}: contract {s.kind}, tolerant {sorted(t_kinds)}")
        self._lists(s_all, t_all, where)
        self._models(s_all, t_all, where)

    def _enums(self, s_all: list[Shape], t_all: list[Shape], where: str) -> None:
        strict = {v for s in s_all if s.kind == "lit" for v in s.values}
        if not strict or (all(isinstance(v, bool) for v in strict)
                          and any(t.kind == "bool" for t in t_all)):
            return  # `Literal[True]`: a flag that is only ever sent set
        known = {v for t in t_all if t.kind == "lit" for v in t.values}
        if known:
            if strict != known:
                self.problems.append(
                    f"{where}: enum differs: contract only {sorted(strict - known)}, "
                    f"tolerant only {sorted(known - strict)}")
        elif any(t.kind == "str" for t in t_all):
            self.open_text.add(where)
        else:
            self.problems.append(f"{where}: the contract's enum has no tolerant counterpart")

    def _lists(self, s_all: list[Shape], t_all: list[Shape], where: str) -> None:
        s_list = [s for s in s_all if s.kind == "list"]
        t_list = [t for t in t_all if t.kind == "list"]
        if s_list and not t_list:
            self.problems.append(f"{where}: the contract has a list, the tolerant model none")
        elif s_list:
            self.pair(s_list[0].item, t_list[0].item, f"{where}[]")

    def _models(self, s_all: list[Shape], t_all: list[Shape], where: str) -> None:
        s_models = [s for s in s_all if s.kind == "model"]
        t_models = [t for t in t_all if t.kind == "model"]
        if not s_models:
            return
        if not t_models:
            kinds = sorted({t.kind for t in t_all})
            if "dict" in kinds:
                self.untyped.add(where)
            else:
                self.problems.append(f"{where}: contract model, tolerant {kinds}")
            return
        if len(s_models) == 1 and len(t_models) == 1:
            self.models(s_models[0].model, t_models[0].model, where)  # type: ignore[arg-type]
            return
        key = s_models[0].discriminator or t_models[0].discriminator
        if key is None:
            self.problems.append(f"{where}: a union of models with no discriminator")
            return
        strict: dict[Any, type[BaseModel]] = {}
        for s in s_models:
            if not tags(s.model, key):  # type: ignore[arg-type]
                self.problems.append(f"{where}: variant {s.model.__name__} has no {key!r}")  # type: ignore[union-attr]
            strict |= dict.fromkeys(tags(s.model, key), s.model)  # type: ignore[arg-type]
        by_tag: dict[Any, type[BaseModel]] = {}
        for t in t_models:
            for tag in tags(t.model, key) | ({t.tag} if t.tag else set()):  # type: ignore[arg-type]
                by_tag.setdefault(tag, t.model)  # type: ignore[arg-type]
        if not by_tag and len(t_models) == 1:
            # one tolerant envelope for every variant (a domain event: `type` is open text)
            by_tag = dict.fromkeys(strict, t_models[0].model)
        self.variants(strict, by_tag, where, key)

    def variants(self, strict: dict[Any, type[BaseModel]],
                 tolerant: dict[Any, type[BaseModel]], where: str, key: str) -> None:
        """Pair a union's variants by the value of their discriminator `key`; that field is
        matched by the pairing itself (one tolerant model may serve several variants)."""
        for tag, model in strict.items():
            if tag not in tolerant:
                self.problems.append(f"{where}: {tag!r} decodes as unknown (no tolerant variant)")
            else:
                self.models(model, tolerant[tag], f"{where}<{tag}>", key)

    def models(self, strict: type[BaseModel], tolerant: type[BaseModel], where: str,
               tag_key: str | None = None) -> None:
        if (strict, tolerant) in self._paired:
            return
        self._paired.add((strict, tolerant))
        self.strict_seen.add(strict)
        s_fields, t_fields = wire_fields(strict), wire_fields(tolerant)
        self._named.setdefault(tolerant, set()).update(s_fields)
        skip = {tag_key, getattr(strict.model_fields.get(tag_key or ""), "alias", None)}
        for key, s in s_fields.items():
            here = f"{strict.__name__}.{key}"
            t = t_fields.get(key)
            if t is None:
                self.problems.append(f"{here}: missing from tolerant {tolerant.__name__}")
                continue
            if not s.is_required() and t.is_required():
                self.problems.append(f"{here}: optional in the contract, required in "
                                     f"tolerant {tolerant.__name__}")
            if key not in skip:
                self.pair(field_annotation(s), field_annotation(t), here)
