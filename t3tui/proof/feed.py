"""Hand the provider records to a supervisor: read in a worker thread, apply on the loop.

The read runs in a daemon thread (`offloop`), waited for `READ_BOUND_S` at most: a record
on a stalled mount holds neither a look nor the exit. While a read that was given up on still
runs, no other starts on the same reader (it is not thread-safe); the records shown stay as
they were.

`note(kind, data)` (a recorder's) hears each change, so that a recording carries what the
proof layer found and a replay shows the same findings (`t3tui.model.proof_wire`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from t3tui.model import Supervisor
from t3tui.model.proof_wire import log_to_wire, record_to_wire
from t3tui.proof.offloop import off_loop
from t3tui.proof.records import RecordReader

log = logging.getLogger(__name__)
POLL_S = 1.0  # how often a live view looks at the records (only appended bytes are read)
READ_BOUND_S = 10.0  # a look waits this long for its read at most
Note = Callable[[str, dict[str, Any]], None]
T = TypeVar("T")


async def apply_records(supervisor: Supervisor, reader: RecordReader,
                        note: Note | None = None, bound_s: float = READ_BOUND_S) -> None:
    """One look: every shown native thread's record, into the supervisor."""
    wanted = supervisor.native_threads()
    if not wanted or not reader.homes.enabled:
        return
    records = await _read(reader, reader.refresh, wanted, bound_s)
    if records is None:
        return
    for thread_id in wanted:
        record = records.get(thread_id)
        if note is not None and record != supervisor.provider_record(thread_id):
            note("providerRecord", {"threadId": thread_id, "record": record_to_wire(record)
                                    if record is not None else None})
        supervisor.set_provider_record(thread_id, record)
    logs = reader.protocol_logs
    if logs is not None:
        found = await _read(reader, logs.refresh, list(wanted), bound_s)
        if found is None:
            return
        for thread_id in wanted:
            log_found = found.get(thread_id)
            if note is not None and log_found != supervisor.protocol_log(thread_id):
                note("protocolLog", {"threadId": thread_id, "log": log_to_wire(log_found)
                                     if log_found is not None else None})
            supervisor.set_protocol_log(thread_id, log_found)


async def _read(reader: RecordReader, fn: Callable[[Any], T], arg: Any,
                bound_s: float) -> T | None:
    """`fn(arg)` off the loop for `bound_s` at most; None when it did not answer in time or
    the reader's last read still runs."""
    if reader.reading:
        return None

    def marked(value: Any) -> T:
        try:
            return fn(value)
        finally:
            reader.reading = False

    reader.reading = True
    try:
        return await off_loop(marked, arg, bound_s=bound_s, name="t3tui-records")
    except TimeoutError:
        log.warning("reading provider records took over %gs; left to finish, not waited for",
                    bound_s)
        return None


async def follow_records(supervisor: Supervisor, reader: RecordReader,
                         interval: float = POLL_S, note: Note | None = None) -> None:
    """Look again every `interval` seconds until cancelled; a failed look is logged and the
    next one tries again (the records are evidence, never a reason to stop supervising)."""
    while True:
        try:
            await apply_records(supervisor, reader, note)
        except Exception:
            log.exception("reading provider records failed")
        await asyncio.sleep(interval)
