"""`notify`: tell a human, change nothing. A command gets the decision's JSON record on stdin
(no shell: its words as written); a URL gets it POSTed (httpx). Either is bounded in time."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import httpx

from t3tui.policy.journal import Step
from t3tui.policy.spec import Notify

NOTIFY_TIMEOUT_S = 10.0


def plan(target: Notify) -> dict[str, Any]:
    """What a dry run says it would do."""
    return {"notify": {"command": list(target.command)} if target.command else {"url": target.url}}


async def notify(target: Notify, record: dict[str, Any],
                 timeout: float = NOTIFY_TIMEOUT_S) -> Step:
    body = json.dumps(record, default=str)
    if target.url is not None:
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                answer = await client.post(target.url, content=body,
                                           headers={"content-type": "application/json"})
        except httpx.HTTPError as exc:
            return Step("notify", "unknown", f"POST {target.url} failed: {type(exc).__name__}",
                        (plan(target),))
        kind = "ok" if answer.is_success else "refused"
        return Step("notify", kind, f"POST {target.url}: HTTP {answer.status_code}", (plan(target),))
    try:
        proc = await asyncio.create_subprocess_exec(
            *target.command, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    except OSError as exc:
        return Step("notify", "unavailable", f"cannot run {target.command[0]}: {exc.strerror}",
                    (plan(target),))
    try:
        async with asyncio.timeout(timeout):
            await proc.communicate(body.encode())
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return Step("notify", "unknown", f"{target.command[0]} did not finish within {timeout:g}s",
                    (plan(target),))
    kind = "ok" if proc.returncode == 0 else "refused"
    return Step("notify", kind, f"{target.command[0]} exited {proc.returncode}", (plan(target),))
