"""A hostile T3 server, built from `shared/docs/t3-protocol.md` alone (it imports nothing of
t3tui): the documented HTTP routes (§2.1 descriptor, §2.4 ticket), the websocket RPC framing
(§3) and the shell stream items (§5.1, §7), with every string and shape chosen to hurt.

It runs on its own thread and event loop, so a test can point a real `t3tui` process (or an
app in the test's own loop) at it. Behaviours (`mode`):

- `crafted`: a well-formed session whose text is hostile: control sequences (`ESC[2J`,
  `ESC]52;c;...`, 8-bit CSI), NUL, DEL, bidi overrides, lone surrogates, huge strings, wrong
  types; then random frames and, now and then, a Defect with escapes in it or a dropped socket.
- `random`: every frame after the handshake is drawn from a seeded generator of valid,
  half-valid and garbage frames (never an answer the client can rely on).
- `calm`: the crafted text (hostile strings, wrong types in some rows), then nothing else: a
  client must synchronize and show it.
- `silent-config`: answers Ping, never answers `server.getConfig`.
- `no-sync`: answers `server.getConfig` and sends a snapshot, never `synchronized`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

TOKEN = "hostile-token-0123456789"

# Strings that have hurt terminals, decoders and encoders.
NASTY = [
    "\x1b[2J\x1b[H",                          # clear the screen, cursor home
    "title\x1b]2;PWNED\x07",                  # set the window title
    "\x1b]52;c;ZWNobyBwd25lZA==\x07",         # write the clipboard
    "\x9b31mred8bit",                         # 8-bit CSI
    "nul\x00del\x7fbell\x07bs\x08",           # C0 and DEL
    "\u202etxt.exe",                          # right-to-left override
    "\u2066isolate\u2069",                    # bidi isolate
    "gpt-\ud800",                             # lone high surrogate (legal JSON)
    "\udfff tail",                            # lone low surrogate
    "line\nbreak\r\nand\ttab\x0b\x0c",
    "\x1bP+q544e\x1b\\",                      # DCS request
    "[bold red]markup[/] :smile:",            # markup and emoji codes
    "A" * 20_000,                             # huge
    "",
]
WRONG_TYPES: list[Any] = [None, 42, -1.5, True, [], {}, ["x"], {"a": 1}, "", "\x1b[2J"]


def nasty(rng: random.Random) -> str:
    return "".join(rng.choice(NASTY) for _ in range(rng.randint(1, 3)))


def shell_thread(rng: random.Random, n: int, hostile: bool) -> dict[str, Any]:
    """A thread shell row (§7), its strings hostile."""
    tid = f"thread-{n}" if not hostile or rng.random() < 0.7 else nasty(rng)
    text = (lambda: nasty(rng)) if hostile else (lambda: f"text {n}")
    row: dict[str, Any] = {
        "id": tid, "projectId": "project-1", "title": text(),
        "createdBy": "agent", "creationSource": rng.choice(["mcp", "web", "provider", text()]),
        "providerInstanceId": text(),
        "modelSelection": {"instanceId": text(), "model": text()},
        "runtimeMode": "full-access", "interactionMode": "default",
        "branch": text(), "worktreePath": text(),
        "lineage": {"parentThreadId": "thread-0" if n else None,
                    "relationshipToParent": "subagent" if n else None,
                    "rootThreadId": "thread-0"},
        "forkedFrom": None, "activeProviderThreadId": None,
        "latestRunId": "run-1", "latestRunRequestedAt": "2026-10-04T12:00:01.000Z",
        "latestRunStartedAt": "2026-10-04T12:00:02.000Z", "latestRunCompletedAt": None,
        "activeRunId": "run-1", "activityRunStatus": rng.choice(["running", "waiting", None]),
        "status": rng.choice(["running", "completed", "failed", "idle", text()]),
        "lastError": text(),
        "pendingRuntimeRequest": rng.choice([None, {"id": text(), "kind": text(),
                                                    "createdAt": "2026-10-04T12:00:03.000Z"}]),
        "latestVisibleMessage": {"id": "m1", "role": "assistant", "text": text(),
                                 "updatedAt": "2026-10-04T12:01:10.000Z"},
        "latestUserMessageAt": None, "hasActionableProposedPlan": False,
        "pendingBackgroundTasks": [{"taskId": text(), "description": text()}],
        "itemCount": 3, "visibleItemCount": 3,
        "createdAt": "2026-10-04T12:00:01.000Z", "updatedAt": "2026-10-04T12:01:10.000Z",
        "archivedAt": None, "settledOverride": None, "settledAt": None, "deletedAt": None,
    }
    if hostile:
        for _ in range(rng.randint(0, 3)):  # a few fields of the wrong type
            row[rng.choice(list(row))] = rng.choice(WRONG_TYPES)
    return row


def snapshot(rng: random.Random, hostile: bool, sequence: int = 10) -> dict[str, Any]:
    return {"kind": "snapshot", "snapshot": {
        "schemaVersion": 1, "snapshotSequence": sequence, "projects": [],
        "threads": [shell_thread(rng, n, hostile) for n in range(rng.randint(1, 6))],
        "archivedThreads": []}}


def random_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(7 if depth < 3 else 4)
    if choice == 0:
        return nasty(rng)
    if choice == 1:
        return rng.choice(WRONG_TYPES)
    if choice == 2:
        return rng.choice([0, -1, 2**70, 1e308, float("1e-300")])
    if choice == 3:
        return rng.choice(["snapshot", "synchronized", "thread.updated", "Chunk", "Exit"])
    if choice == 4:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["_tag", "kind", "requestId", "values", "exit", "sequence", "thread", "defect",
            "cause", "value", "location", "snapshot", nasty(rng)]
    return {rng.choice(keys): random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def random_frame(rng: random.Random, shell_id: str) -> str:
    """One websocket text frame: valid, half-valid or garbage."""
    kind = rng.randrange(10)
    if kind == 0:
        return rng.choice(["", "{", "[]", "null", "\x00", '{"_tag":', "\ud800", "[[[[[[[["])
    if kind == 1:
        return json.dumps(random_value(rng))
    if kind == 2:
        return json.dumps({"_tag": "Chunk", "requestId": shell_id, "values": [
            {"kind": "thread.updated", "sequence": rng.randint(-5, 10**6), "location":
             rng.choice(["active", "archive", nasty(rng)]),
             "thread": shell_thread(rng, rng.randint(0, 9), True)}]})
    if kind == 3:
        return json.dumps({"_tag": "Chunk", "requestId": rng.choice([shell_id, "999", nasty(rng)]),
                           "values": random_value(rng)})
    if kind == 4:
        return json.dumps({"_tag": "Chunk", "requestId": shell_id,
                           "values": [snapshot(rng, True, rng.randint(1, 10**6))]})
    if kind == 5:
        return json.dumps({"_tag": "Exit", "requestId": rng.choice(["1", "2", "77", nasty(rng)]),
                           "exit": rng.choice([
                               {"_tag": "Failure", "cause": [{"_tag": "Die",
                                                              "defect": nasty(rng)}]},
                               {"_tag": "Failure", "cause": [{"_tag": "Fail", "error": {
                                   "_tag": nasty(rng), "message": nasty(rng)}}]},
                               {"_tag": "Success"}, random_value(rng)])})
    if kind == 6:
        return json.dumps([{"_tag": "Pong"}, random_value(rng), {"_tag": rng.choice(
            ["Pong", "Chunk", "Exit", "Defect", nasty(rng)])}])
    if kind == 7:
        return json.dumps({"_tag": "Chunk", "requestId": shell_id,
                           "values": [{"kind": "synchronized"}]})
    if kind == 8:
        return json.dumps({"_tag": "Pong", **{nasty(rng): random_value(rng)}})
    return json.dumps({"_tag": "Chunk", "requestId": shell_id, "values": [
        {"kind": rng.choice(["thread.removed", "project.updated", "project.removed",
                             nasty(rng)]), "sequence": rng.randint(0, 10**6),
         "threadId": nasty(rng), "location": "active", "project": random_value(rng)}]})


@dataclass
class HostileServer:
    mode: str = "crafted"
    seed: int = 0
    # Seconds of frames per socket before a crafted socket drops (None: keep it).
    drop_after: float | None = None
    frames_sent: int = 0
    sockets: int = 0
    errors: list[BaseException] = field(default_factory=list)
    url: str = ""
    _loop: asyncio.AbstractEventLoop | None = None
    _stop: asyncio.Event | None = None

    # -- HTTP (§2.1, §2.2, §2.4) ----------------------------------------------------------

    def respond(self, conn: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?")[0]
        if path == "/.well-known/t3/environment":
            return _json(conn, 200, {
                "environmentId": "env-\x1b[2Jhostile", "label": "\u202ehostile",
                "platform": {"os": "linux", "arch": "x64"}, "serverVersion": "6.6.6",
                "orchestrationProtocolVersion": 2, "capabilities": {}})
        if path == "/api/auth/websocket-ticket":
            if request.headers.get("Authorization") != f"Bearer {TOKEN}":
                return _json(conn, 401, {"code": "auth_invalid", "reason": "\x1b[2Jno"})
            return _json(conn, 200, {"ticket": "wst_hostile",
                                     "expiresAt": "2026-10-04T12:05:00.000Z"})
        if path == "/ws":
            return None  # the upgrade
        return _json(conn, 404, {})

    # -- websocket (§3) -------------------------------------------------------------------

    async def handler(self, ws: ServerConnection) -> None:
        self.sockets += 1
        rng = random.Random(f"{self.seed}-{self.sockets}")
        shell_id: list[str] = ["2"]
        loop = asyncio.get_running_loop()
        started = loop.time()

        async def send(text: str) -> None:
            self.frames_sent += 1
            await ws.send(text)

        async def reader() -> None:
            async for raw in ws:
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                for m in message if isinstance(message, list) else [message]:
                    await self.answer(m, send, rng, shell_id)

        read = asyncio.create_task(reader())
        try:
            while not read.done():
                await asyncio.sleep(rng.choice([0.005, 0.02, 0.05]))
                if self.mode in ("crafted", "random") and shell_id[0] != "2-unknown":
                    await send(random_frame(rng, shell_id[0]))
                if self.mode == "crafted" and rng.random() < 0.01:
                    await send(json.dumps({"_tag": "Defect", "defect": nasty(rng)}))
                if self.drop_after is not None and loop.time() - started > self.drop_after:
                    transport = ws.transport
                    if transport is not None:
                        transport.abort()  # a dead socket, no close frame
                    return
        except ConnectionClosed:
            pass
        except Exception as exc:  # the test asserts `errors == []`
            self.errors.append(exc)
        finally:
            read.cancel()
            with contextlib.suppress(BaseException):
                await read

    async def answer(self, m: Any, send: Any, rng: random.Random, shell_id: list[str]) -> None:
        if not isinstance(m, dict):
            return
        tag = m.get("_tag")
        if tag == "Ping":
            await send(json.dumps({"_tag": "Pong"}))
            return
        if tag != "Request":
            return
        rid, method = m.get("id"), m.get("tag")
        if method == "server.getConfig":
            if self.mode == "silent-config":
                return
            await send(json.dumps({"_tag": "Exit", "requestId": rid, "exit": {
                "_tag": "Success", "value": {"environment": {"environmentId": "\x1b[2J"},
                                             "cwd": "\x1b]2;x\x07", "providers": [],
                                             "settings": {}}}}))
        elif method == "orchestration.subscribeShell":
            shell_id[0] = str(rid)
            hostile = self.mode in ("crafted", "random", "calm")
            await send(json.dumps({"_tag": "Chunk", "requestId": rid,
                                   "values": [snapshot(rng, hostile)]}))
            if self.mode != "no-sync":
                await send(json.dumps({"_tag": "Chunk", "requestId": rid,
                                       "values": [{"kind": "synchronized"}]}))
        elif method == "orchestration.subscribeThread" and self.mode == "crafted":
            await send(json.dumps({"_tag": "Chunk", "requestId": rid, "values": [
                {"kind": "synchronized"}, random_value(rng)]}))
        elif method == "orchestration.subscribeThread" and self.mode == "calm":
            await send(json.dumps({"_tag": "Chunk", "requestId": rid,
                                   "values": [{"kind": "synchronized"}]}))
        elif method == "orchestration.dispatchCommand":
            await send(json.dumps({"_tag": "Exit", "requestId": rid, "exit": {
                "_tag": "Failure", "cause": [{"_tag": "Fail", "error": {
                    "_tag": "OrchestrationV2DispatchCommandError", "message": nasty(rng)}}]}}))

    # -- lifecycle --------------------------------------------------------------------------

    @contextlib.contextmanager
    def running(self) -> Iterator[HostileServer]:
        """Serve on 127.0.0.1:0 from a thread of its own until the block ends."""
        ready = threading.Event()

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            async with serve(self.handler, "127.0.0.1", 0, process_request=self.respond,
                             max_size=2**24, ping_interval=None) as server:
                port = server.sockets[0].getsockname()[1]
                self.url = f"http://127.0.0.1:{port}"
                ready.set()
                await self._stop.wait()

        thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
        thread.start()
        if not ready.wait(10):
            raise RuntimeError("hostile server did not start")
        try:
            yield self
        finally:
            assert self._loop is not None and self._stop is not None
            self._loop.call_soon_threadsafe(self._stop.set)
            thread.join(10)


def _json(conn: ServerConnection, status: int, body: Any) -> Response:
    response = conn.respond(status, json.dumps(body))
    response.headers["Content-Type"] = "application/json"
    return response


# What must never reach a terminal from wire text: C0 controls but newline and tab, DEL, C1
# (as UTF-8), bidi embeddings/overrides/isolates (as UTF-8), an encoded surrogate.
_RAW = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
    rb"|\xed[\xa0-\xbf][\x80-\xbf]"
)


def raw_controls(data: bytes) -> list[bytes]:
    """Every forbidden byte sequence in `data` (terminal output)."""
    return _RAW.findall(data)
