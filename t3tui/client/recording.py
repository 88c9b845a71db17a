"""Reading a recording (docs/RECORDING.md): the header, then the lines and their times.

Lines are parsed lazily: opening a recording decompresses it, splits it into lines and reads
each line's time (from its fixed-width prefix when the writer was t3tui, else by parsing the
line), nothing more; the replay parses a line when it applies it. A recording that is still
growing, or whose recorder was killed, ends without a gzip trailer: what was flushed is read.
A truncated last line is skipped with a warning. Everything else that is wrong is one
`RecordingError` line.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from t3tui.client.recorder import FORMAT_VERSION, HEADER_KEY

GZIP_MAGIC = b"\x1f\x8b"
_PREFIX = b'{"t":"'
_STAMP_END = len(_PREFIX) + 27  # 2026-12-02T05:17:45.123456Z


class RecordingError(Exception):
    """The file is missing, empty, not a recording, or from a newer t3tui: one line."""


@dataclass
class Recording:
    """A recording in memory: `header`, `lines` (raw bytes, header excluded) and their epoch
    `times`; `warnings` for what was skipped."""

    path: Path
    header: dict[str, Any]
    lines: list[bytes]
    times: list[float]
    warnings: list[str] = field(default_factory=list)

    @property
    def server(self) -> dict[str, Any]:
        server = self.header.get("server")
        return server if isinstance(server, dict) else {}

    @property
    def started(self) -> float:
        return parse_time(self.header.get("startedAt")) or (self.times[0] if self.times else 0.0)

    @property
    def start(self) -> float:
        """The replay clock's first moment: the first line (or the header's start)."""
        return self.times[0] if self.times else self.started

    @property
    def end(self) -> float:
        return self.times[-1] if self.times else self.started

    def parse(self, index: int) -> dict[str, Any]:
        """Line `index` as an object (a line that is not one: an empty dict)."""
        try:
            value = json.loads(self.lines[index])
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


def parse_time(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.timestamp()


def _decompress(data: bytes, name: str, warnings: list[str]) -> bytes:
    """Every gzip member, as far as it goes; a growing or cut file gives what was flushed."""
    out: list[bytes] = []
    while data:
        inflater = zlib.decompressobj(31)
        try:
            out.append(inflater.decompress(data))
        except zlib.error as exc:
            if not out:
                raise RecordingError(f"{name} is not a t3tui recording (bad gzip data: {exc})"
                                     ) from None
            warnings.append(f"{name}: damaged compressed data after "
                            f"{sum(map(len, out))} bytes; the rest is skipped")
            break
        if not inflater.eof:
            out.append(inflater.flush())
            break
        data = inflater.unused_data
    return b"".join(out)


def read_recording(path: str | Path) -> Recording:
    """Read a recording, or raise `RecordingError` saying what is wrong with it."""
    path = Path(path)
    name = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RecordingError(f"no recording {name}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{name} is a directory, not a recording") from None
    except OSError as exc:
        raise RecordingError(f"cannot read {name}: {exc.strerror or exc}") from None
    if not data:
        raise RecordingError(f"{name} is empty: not a t3tui recording")
    warnings: list[str] = []
    text = _decompress(data, name, warnings) if data.startswith(GZIP_MAGIC) else data
    lines = text.split(b"\n")  # never splitlines(): JSON text may hold U+2028 and friends
    if lines and not lines[-1].strip():
        lines.pop()
    elif lines and not _complete(lines[-1]):
        lines.pop()
        warnings.append(f"{name}: the last line is cut short (was the recorder killed?); "
                        "skipped it")
    if not lines:
        raise RecordingError(f"{name} is empty: not a t3tui recording")
    header = _header(lines[0], name)
    body = [line for line in lines[1:] if line.strip()]
    times = _times(body, name, warnings)
    return Recording(path, header, body, times, warnings)


def _complete(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _header(line: bytes, name: str) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        header = None
    if not isinstance(header, dict) or HEADER_KEY not in header:
        raise RecordingError(f"{name} is not a t3tui recording (its first line is not a "
                             "recording header)")
    version = header[HEADER_KEY]
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordingError(f"{name}: unreadable recording format {version!r}")
    if version > FORMAT_VERSION:
        writer = header.get("t3tui")
        by = f" (written by t3tui {writer})" if isinstance(writer, str) else ""
        raise RecordingError(f"{name} is recording format {version}{by}; this t3tui reads "
                             f"format {FORMAT_VERSION}: upgrade t3tui to replay it")
    return header


def _times(lines: list[bytes], name: str, warnings: list[str]) -> list[float]:
    """Each line's time; a line without one takes the time before it (and is reported)."""
    times: list[float] = []
    last = 0.0
    bad = 0
    fast: dict[bytes, float] = {}
    for line in lines:
        at: float | None = None
        if line.startswith(_PREFIX) and line[_STAMP_END - 1:_STAMP_END + 1] == b'Z"':
            stamp = line[len(_PREFIX):_STAMP_END]
            # many lines share a second: parse the second once, add the fraction
            second, _, micro = stamp.partition(b".")
            base = fast.get(second)
            if base is None:
                base = parse_time(second.decode("ascii", "replace") + "Z")
                if base is not None:
                    fast[second] = base
            if base is not None and micro[:-1].isdigit():
                at = base + int(micro[:-1]) / 10 ** (len(micro) - 1)
        if at is None:
            try:
                obj = json.loads(line)
            except ValueError:
                obj = None
            at = parse_time(obj.get("t")) if isinstance(obj, dict) else None
        if at is None:
            bad += 1
            at = last
        last = max(last, at)  # a clock step back keeps the order of the file
        times.append(last)
    if bad:
        warnings.append(f"{name}: {bad} line(s) without a readable time or JSON were kept in "
                        "place and are ignored")
    return times
