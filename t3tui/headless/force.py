"""`t3tui interrupt THREAD --force`: the forced stop, for a run whose interrupt did not land.

It sends what the app's forced stop sends (delegation.md §9.1, level 3): a
`provider-session.detach` of each live provider session of the thread, one at a time, until the
stream shows the run ended. Detaching tears the attachment down, so a run that no longer hears
from its provider ends; other threads sharing that session lose it too.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from t3tui.client.outcome import new_command_id
from t3tui.client.settle_guard import DEAD_SESSION, fetch_projection
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, OnThread
from t3tui.headless.render import title_of
from t3tui.model import ThreadRow
from t3tui.protocol.commands import ProviderSessionDetach

# the app's own reason (tui/flows.py), so the server's log reads the same whoever forced it
FORCE_REASON = "t3tui: force stop (the run did not stop on interrupt)"


async def force_stop(on: OnThread, out: Console, target: ThreadRow, timeout: float) -> int:
    """Detach `target`'s live provider sessions until its active run ends; the exit code."""
    title = title_of(target, target.id)
    run_id = target.active_run_id
    assert run_id is not None
    projection = await fetch_projection(on.session, target.id)
    sessions = [] if projection is None else sorted(
        s.id for s in projection.provider_sessions if s.status not in DEAD_SESSION)
    if not sessions:
        out.print(Text("no live provider session to detach; nothing more t3tui can do here · ",
                       style="red").append(title))
        return EXIT_FLAGGED
    for session_id in sessions:
        command = ProviderSessionDetach(command_id=new_command_id(), thread_id=target.id,
                                        provider_session_id=session_id, reason=FORCE_REASON)
        sent = await common.send_and_confirm(
            on, command, target.id, lambda r: r.active_run_id != run_id, timeout, out)
        if sent.row is not None:
            status = sent.row.run_status if sent.row.active_run_id is None else "ended"
            out.print(Text(f"force-stopped: run {run_id} {status or 'ended'} · ",
                           style="bold green").append(title))
            out.print(Text(f"detached provider session {session_id}", style="dim"))
            return EXIT_OK
    out.print(Text(f"detached, but run {run_id} was still active after {timeout:g}s · ",
                   style="yellow").append(title))
    return EXIT_FLAGGED
