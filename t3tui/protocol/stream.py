"""Shell and thread stream items (§5), dispatched on `kind`; unknown kinds keep every key."""

from typing import Any, Literal

from .base import EventSequence, ProtocolError, WireModel, type_name
from .enums import ThreadLocation
from .events import DomainEvent
from .projection import ThreadProjection
from .threads import ProjectShell, ShellSnapshot, ThreadShell


class ShellSnapshotItem(WireModel):
    """Replaces all shell state."""

    kind: Literal["snapshot"] = "snapshot"
    snapshot: ShellSnapshot
    resolved_repository_identity_roots: list[str] | None = None

    wire_optional = frozenset({"resolved_repository_identity_roots"})


class ShellSynchronized(WireModel):
    """Separates catch-up from live delivery."""

    kind: Literal["synchronized"] = "synchronized"


class ProjectUpdated(WireModel):
    kind: Literal["project.updated"] = "project.updated"
    sequence: EventSequence
    project: ProjectShell


class ProjectRemoved(WireModel):
    kind: Literal["project.removed"] = "project.removed"
    sequence: EventSequence
    project_id: str


class ThreadUpdated(WireModel):
    """The current full shell row; `location` is absent on the archived-shell stream."""

    kind: Literal["thread.updated"] = "thread.updated"
    sequence: EventSequence
    location: ThreadLocation | str | None = None
    thread: ThreadShell

    wire_optional = frozenset({"location"})


class ThreadRemoved(WireModel):
    kind: Literal["thread.removed"] = "thread.removed"
    sequence: EventSequence
    location: ThreadLocation | str | None = None
    thread_id: str

    wire_optional = frozenset({"location"})


class UnknownShellItem(WireModel):
    """A shell item of a kind this client does not know; every key is kept."""

    kind: str

    @property
    def raw(self) -> dict[str, Any]:
        """The item as it came off the wire."""
        return self.to_wire()


class ThreadSnapshotItem(WireModel):
    """Replaces the whole local projection of the thread."""

    kind: Literal["snapshot"] = "snapshot"
    snapshot_sequence: EventSequence
    projection: ThreadProjection


class ThreadSynchronized(WireModel):
    kind: Literal["synchronized"] = "synchronized"


class ThreadEventItem(WireModel):
    """One domain event at a global sequence."""

    kind: Literal["event"] = "event"
    sequence: EventSequence
    event: DomainEvent


class UnknownThreadItem(WireModel):
    """A thread item of a kind this client does not know; every key is kept."""

    kind: str

    @property
    def raw(self) -> dict[str, Any]:
        """The item as it came off the wire."""
        return self.to_wire()


ShellItem = (
    ShellSnapshotItem
    | ShellSynchronized
    | ProjectUpdated
    | ProjectRemoved
    | ThreadUpdated
    | ThreadRemoved
    | UnknownShellItem
)
ThreadItem = ThreadSnapshotItem | ThreadSynchronized | ThreadEventItem | UnknownThreadItem

_SHELL: dict[str, type[WireModel]] = {
    "snapshot": ShellSnapshotItem,
    "synchronized": ShellSynchronized,
    "project.updated": ProjectUpdated,
    "project.removed": ProjectRemoved,
    "thread.updated": ThreadUpdated,
    "thread.removed": ThreadRemoved,
}
_THREAD: dict[str, type[WireModel]] = {
    "snapshot": ThreadSnapshotItem,
    "synchronized": ThreadSynchronized,
    "event": ThreadEventItem,
}


def _decode(obj: Any, table: dict[str, type[WireModel]], unknown: type[WireModel], what: str) -> Any:
    if not isinstance(obj, dict):
        raise ProtocolError(f"{what} must be a JSON object, got {type_name(obj)}")
    kind = obj.get("kind")
    if not isinstance(kind, str):
        raise ProtocolError(f"{what} has no string 'kind'")
    return table.get(kind, unknown).from_wire(obj)


def decode_shell_item(obj: Any) -> ShellItem:
    """Decode one item of the (active or archived) shell stream."""
    return _decode(obj, _SHELL, UnknownShellItem, "shell stream item")


def decode_thread_item(obj: Any) -> ThreadItem:
    """Decode one item of a thread stream."""
    return _decode(obj, _THREAD, UnknownThreadItem, "thread stream item")


_SNAPSHOT_ROWS = {"projects": ProjectShell, "threads": ThreadShell, "archivedThreads": ThreadShell}


def salvage_shell_snapshot(obj: Any) -> tuple[dict[str, Any], int] | None:
    """A shell `snapshot` item that failed to decode, without its malformed rows: one bad
    thread (a hostile or buggy server) must not cost every other thread. Returns the item
    with only the rows that decode on their own, and how many were left out; None when it is
    not a snapshot or no row was at fault."""
    if not isinstance(obj, dict) or obj.get("kind") != "snapshot":
        return None
    snapshot = obj.get("snapshot")
    if not isinstance(snapshot, dict):
        return None
    kept: dict[str, Any] = dict(snapshot)
    dropped = 0
    for key, model in _SNAPSHOT_ROWS.items():
        rows = snapshot.get(key)
        if not isinstance(rows, list):
            continue
        good = []
        for row in rows:
            try:
                model.from_wire(row)
            except ProtocolError:
                dropped += 1
                continue
            good.append(row)
        kept[key] = good
    return ({**obj, "snapshot": kept}, dropped) if dropped else None
