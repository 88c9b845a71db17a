"""Hand the provider records to a supervisor: read in a worker thread, apply on the loop."""

from __future__ import annotations

import asyncio
import logging

from t3tui.model import Supervisor
from t3tui.proof.records import RecordReader

log = logging.getLogger(__name__)
POLL_S = 1.0  # how often a live view looks at the records (only appended bytes are read)


async def apply_records(supervisor: Supervisor, reader: RecordReader) -> None:
    """One look: every shown native thread's record, into the supervisor."""
    wanted = supervisor.native_threads()
    if not wanted or not reader.homes.enabled:
        return
    records = await asyncio.to_thread(reader.refresh, wanted)
    for thread_id in wanted:
        supervisor.set_provider_record(thread_id, records.get(thread_id))
    logs = reader.protocol_logs
    if logs is not None:
        found = await asyncio.to_thread(logs.refresh, list(wanted))
        for thread_id in wanted:
            supervisor.set_protocol_log(thread_id, found.get(thread_id))


async def follow_records(supervisor: Supervisor, reader: RecordReader,
                         interval: float = POLL_S) -> None:
    """Look again every `interval` seconds until cancelled; a failed look is logged and the
    next one tries again (the records are evidence, never a reason to stop supervising)."""
    while True:
        try:
            await apply_records(supervisor, reader)
        except Exception:
            log.exception("reading provider records failed")
        await asyncio.sleep(interval)
