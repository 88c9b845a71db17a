"""Recording a session: every server frame received and every request sent, with local times.

A recording is gzip-compressed NDJSON (format in docs/RECORDING.md): one header line
(`t3tuiRecording`, t3tui version, server descriptor, protocol version, start time), then one
line per frame or connection change. It never holds a token or a ticket: tickets travel only
in the upgrade URL and tokens only in HTTP headers, neither of which is recorded.

The hooks on the hot path (`received`, `sent`) only queue the text with its time; a writer
thread formats, compresses and appends. It flushes whenever it has caught up (a gzip sync
flush), so the file is readable while it grows, and a killed recorder loses at most the
frames still queued. The file is created private (0600) and never overwritten.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import t3tui
from t3tui.protocol.environment import PROTOCOL_VERSION
from t3tui.protocol.rpc import Ack, Ping

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
HEADER_KEY = "t3tuiRecording"
_STOP = object()


@dataclass(frozen=True)
class _Sync:
    """A marker in the queue: set `done` once everything before it is flushed."""

    done: threading.Event


def stamp(epoch: float) -> str:
    """Fixed-width UTC time with microseconds (`2026-12-02T05:17:45.123456Z`)."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class RecordingExists(OSError):
    """The output file exists: a recording is never overwritten."""


@dataclass
class RecorderStats:
    frames_in: int = 0
    frames_out: int = 0
    connections: int = 0


class Recorder:
    """Appends a session's traffic to `path` until `close()`; see the module docstring.

    `clock` gives epoch seconds (tests pass a fake one). Safe to call from the event loop:
    nothing here blocks on the disk.
    """

    def __init__(self, path: str | Path, *, url: str = "",
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.stats = RecorderStats()
        self._clock = clock
        self._url = url
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise RecordingExists(f"{self.path} exists; a recording is never overwritten") from None
        self._file = os.fdopen(fd, "wb")
        self._started = clock()
        self._header_written = False
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._write_loop, name="t3tui-recorder",
                                        daemon=True)
        self._thread.start()

    # -- hooks (event loop side: queue only) --

    def received(self, text: str, *, readable: bool = True) -> None:
        """A server frame, as received. `readable=False`: not JSON we could decode."""
        self.stats.frames_in += 1
        self._put(("in" if readable else "inText", text))

    def sent(self, message: Any, text: str) -> None:
        """A client message as sent. Acks and Pings are liveness, not content: skipped."""
        if isinstance(message, Ack | Ping):
            return
        self.stats.frames_out += 1
        self._put(("out", text))

    def connected(self, descriptor: Any) -> None:
        """A socket opened to a server with this environment descriptor (a wire model)."""
        self.stats.connections += 1
        server = descriptor.to_wire() if hasattr(descriptor, "to_wire") else descriptor
        self._put(("connection", {"connection": "open", "server": server}))

    def disconnected(self, reason: str) -> None:
        self._put(("connection", {"connection": "closed", "reason": reason}))

    def note(self, kind: str, data: dict[str, Any]) -> None:
        """A client-side fact the frames do not carry (a check-in's deadline)."""
        self._put(("note", {"note": kind, kind: data}))

    def sync(self, timeout: float = 10.0) -> bool:
        """Block until everything queued before this call is written and flushed (a reader
        then sees it); False when `timeout` passed first. Never call it on the event loop."""
        if self._closed:
            self._thread.join(timeout=timeout)
            return not self._thread.is_alive()
        done = threading.Event()
        self._queue.put(_Sync(done))
        return done.wait(timeout)

    def close(self) -> None:
        """Write what is queued, end the gzip stream, close the file. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        self._thread.join(timeout=30)

    def _put(self, entry: tuple[str, Any]) -> None:
        if not self._closed:
            self._queue.put((self._clock(), *entry))

    # -- writer thread --

    def _write_loop(self) -> None:
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip container
        pending: list[tuple[float, str, Any]] = []
        try:
            while True:
                entry = self._queue.get()
                if entry is _STOP:
                    break
                if isinstance(entry, _Sync):
                    if self._header_written:
                        self._file.write(compressor.flush(zlib.Z_SYNC_FLUSH))
                        self._file.flush()
                    entry.done.set()
                    continue
                if not self._header_written:
                    # the header carries the descriptor: hold frames until the first connect
                    pending.append(entry)
                    if entry[1] != "connection":
                        continue
                    self._write(compressor, self._header(entry[2].get("server")))
                    entries, pending = pending, []
                else:
                    entries = [entry]
                for item in entries:
                    self._write(compressor, self._line(*item))
                if self._queue.empty():
                    self._file.write(compressor.flush(zlib.Z_SYNC_FLUSH))
                    self._file.flush()
            if not self._header_written:
                self._write(compressor, self._header(None))
            for item in pending:
                self._write(compressor, self._line(*item))
            self._file.write(compressor.flush(zlib.Z_FINISH))
        except OSError as exc:  # a full disk must not take the session down
            log.error("recording to %s stopped: %s", self.path, exc)
        finally:
            try:
                self._file.close()
            except OSError as exc:
                log.error("closing recording %s: %s", self.path, exc)

    def _write(self, compressor: Any, line: str) -> None:
        self._file.write(compressor.compress(line.encode("utf-8", errors="replace")))

    def _header(self, server: Any) -> str:
        self._header_written = True
        version = server.get("orchestrationProtocolVersion") if isinstance(server, dict) else None
        return json.dumps({
            HEADER_KEY: FORMAT_VERSION,
            "t3tui": t3tui.__version__,
            "startedAt": stamp(self._started),
            "url": self._url,
            "server": server,
            "protocolVersion": version if version is not None else PROTOCOL_VERSION,
        }, separators=(",", ":")) + "\n"

    @staticmethod
    def _line(at: float, kind: str, body: Any) -> str:
        head = f'{{"t":"{stamp(at)}",'
        if kind in ("in", "out"):
            # Valid JSON holds raw newlines only as whitespace between tokens: a space keeps
            # the frame intact and the line one line.
            if "\n" in body or "\r" in body:
                body = body.replace("\r", " ").replace("\n", " ")
            return f'{head}"{kind}":{body}}}\n'
        if kind == "inText":
            return f'{head}"inText":{json.dumps(body)}}}\n'
        return head + json.dumps(body, separators=(",", ":"))[1:] + "\n"
