"""Hand the provider records to a supervisor: read in a worker thread, apply on the loop.

`note(kind, data)` (a recorder's) hears each change, so that a recording carries what the
proof layer found and a replay shows the same findings (`t3tui.model.proof_wire`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from t3tui.model import Supervisor
from t3tui.model.proof_wire import log_to_wire, record_to_wire
from t3tui.proof.records import RecordReader

log = logging.getLogger(__name__)
POLL_S = 1.0  # how often a live view looks at the records (only appended bytes are read)
Note = Callable[[str, dict[str, Any]], None]


async def apply_records(supervisor: Supervisor, reader: RecordReader,
                        note: Note | None = None) -> None:
    """One look: every shown native thread's record, into the supervisor."""
    wanted = supervisor.native_threads()
    if not wanted or not reader.homes.enabled:
        return
    records = await asyncio.to_thread(reader.refresh, wanted)
    for thread_id in wanted:
        record = records.get(thread_id)
        if note is not None and record != supervisor.provider_record(thread_id):
            note("providerRecord", {"threadId": thread_id, "record": record_to_wire(record)
                                    if record is not None else None})
        supervisor.set_provider_record(thread_id, record)
    logs = reader.protocol_logs
    if logs is not None:
        found = await asyncio.to_thread(logs.refresh, list(wanted))
        for thread_id in wanted:
            log_found = found.get(thread_id)
            if note is not None and log_found != supervisor.protocol_log(thread_id):
                note("protocolLog", {"threadId": thread_id, "log": log_to_wire(log_found)
                                     if log_found is not None else None})
            supervisor.set_protocol_log(thread_id, log_found)


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
