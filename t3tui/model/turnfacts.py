"""The provider side of a thread's facts: its run's latest provider turn, provider thread and
session, their native refs, and a provider still running after an interrupt."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from t3tui.model.projection import TERMINAL_TURN, Projection
from t3tui.model.provider_record import native_ref
from t3tui.model.wire import string, ts, ts_key


def native_side(proj: Projection | None, run: dict[str, Any] | None,
                base: dict[str, Any], turns: dict[int, Any] | None = None) -> tuple[Any, ...]:
    """(native thread ref, native turn ref, T3 provider turn id, its start) for a run (else the
    thread's active provider thread): what the provider's own record is looked up by.
    `turns`: latest turns already looked up, by id() of their run."""
    if proj is None:
        return None, None, None, None
    pthread_id = (run or {}).get("providerThreadId") or base.get("activeProviderThreadId")
    pthread = proj.provider_threads.get(str(pthread_id)) if pthread_id else None
    if pthread is None and proj.provider_threads:
        pthread = max(proj.provider_threads.values(), key=lambda p: ts_key(p.get("updatedAt")))
    driver = string(pthread.get("driver")) if pthread else None
    thread_ref = native_ref(pthread.get("nativeThreadRef"), driver) if pthread else None
    if run is None:
        turn = None
    elif turns is not None and id(run) in turns:
        turn = turns[id(run)]
    else:
        turn = proj.latest_turn(run)
    turn_ref = native_ref(turn.get("nativeTurnRef"), driver) if turn else None
    return (thread_ref, turn_ref, string(turn.get("id")) if turn else None,
            ts(turn.get("startedAt")) if turn else None)


def _provider_side(proj: Projection, run: dict[str, Any] | None,
                   turns: dict[int, Any]) -> tuple[Any, ...]:
    """(turn status, turn ended at, provider thread idle-at, stopped session) for a run."""
    if run is None:
        return None, None, None, None
    started = ts(run.get("startedAt")) or ts(run.get("requestedAt"))
    turn = turns[id(run)] = proj.latest_turn(run)
    turn_status = string(turn.get("status")) if turn else None
    turn_end = ts(turn.get("completedAt")) if turn else None
    pthread = proj.provider_threads.get(str(run.get("providerThreadId")))
    idle_at = None
    if pthread and pthread.get("status") == "idle":
        updated = ts(pthread.get("updatedAt"))
        if updated and started and updated >= started:
            idle_at = updated
    stopped = None
    for sid, sess in proj.provider_sessions.items():
        if sess.get("status") in ("stopped", "error"):
            since = ts(sess.get("updatedAt"))
            if since is None or started is None or since >= started:
                stopped = (sid, str(sess.get("status")), since)
    return turn_status, turn_end, idle_at, stopped


def turn_side(base: dict[str, Any], proj: Projection | None, run: dict[str, Any] | None,
               latest_run: dict[str, Any] | None, activity: str | None) -> dict[str, Any]:
    """The facts a provider turn moves: progress, the turn's status and refs, the provider
    thread and session, a runaway after an interrupt."""
    if proj is None:
        return dict(agent_progress_at=None, provider_turn_status=None, provider_turn_ended_at=None,
                    provider_thread_idle_at=None, stopped_session=None, native_thread=None,
                    native_turn=None, provider_turn_id=None, provider_turn_started_at=None,
                    runaway=None)
    turns: dict[int, Any] = {}  # each run's latest turn, looked up once
    turn_status, turn_end, idle_at, stopped = _provider_side(proj, run, turns)
    native_thread, native_turn, pturn_id, pturn_start = native_side(proj, run or latest_run,
                                                                    base, turns)
    return dict(
        agent_progress_at=proj.last_progress_at, provider_turn_status=turn_status,
        provider_turn_ended_at=turn_end if turn_status in TERMINAL_TURN else None,
        provider_thread_idle_at=idle_at, stopped_session=stopped, native_thread=native_thread,
        native_turn=native_turn, provider_turn_id=pturn_id, provider_turn_started_at=pturn_start,
        runaway=_runaway(proj, latest_run) if activity is None else None)


def _runaway(proj: Projection, run: dict[str, Any] | None) -> tuple[str, datetime | None, tuple[str, ...]] | None:
    """The latest run ended `interrupted` while its provider turn or thread still runs."""
    if run is None or run.get("status") != "interrupted":
        return None
    parts = []
    turn = proj.latest_turn(run)
    if turn is not None and turn.get("status") in ("running", "pending"):
        parts.append(f"provider turn {turn.get('id')} {turn.get('status')}")
    pthread = proj.provider_threads.get(str(run.get("providerThreadId")))
    if pthread is not None and pthread.get("status") == "active":
        parts.append(f"provider thread {pthread.get('id')} active")
    if not parts:
        return None
    sid = string(pthread.get("providerSessionId")) if pthread else None
    session = proj.provider_sessions.get(sid) if sid else None
    if session is not None and session.get("status") in ("running", "waiting"):
        parts.append(f"provider session {sid} {session.get('status')}")
    return str(run.get("id")), ts(run.get("completedAt")), tuple(parts)


__all__ = ["native_side", "turn_side"]
