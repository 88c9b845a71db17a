"""Tail a JSONL file: keep the offset, read only what was appended since the last look.

A 100 MB rollout is read once; later looks read only its new bytes. A partial last line is
held back until its newline arrives (`finish()` counts it as truncated when the file is done
being written, e.g. in a post-mortem). A file that shrank or was replaced is read afresh.
Compressed rollouts (`.jsonl.zst`) are archived, so they are decompressed once per change.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHUNK = 1 << 20
MAX_LINE = 64 << 20  # a longer "line" is garbage: skipped, never held in memory


class TailError(Exception):
    """The file cannot be read (one line, for "no provider record: <why>")."""


@dataclass
class Batch:
    """Lines read in one look: (1-based line number, parsed object) and how many were bad."""

    lines: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    skipped: int = 0
    reset: bool = False  # the file was replaced or truncated: start over


def json_line(raw: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


class JsonlTail:
    def __init__(self, path: Path,
                 parse_line: Callable[[bytes], dict[str, Any] | None] = json_line) -> None:
        self.path = path
        self.parse_line = parse_line
        self.offset = 0
        self.line_no = 0
        self.bytes_read = 0
        self._partial = b""
        self._ident: tuple[int, int] | None = None
        self._zst_sig: tuple[int, int] | None = None

    def read(self) -> Batch:
        """Everything appended since the last call."""
        if self.path.name.endswith(".zst"):
            return self._read_zst()
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise TailError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        batch = Batch()
        ident = (st.st_dev, st.st_ino)
        if self._ident is not None and (ident != self._ident or st.st_size < self.offset):
            self.offset, self.line_no, self._partial, batch.reset = 0, 0, b"", True
        self._ident = ident
        if st.st_size == self.offset:
            return batch
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                while True:
                    chunk = fh.read(CHUNK)
                    if not chunk:
                        break
                    self.offset += len(chunk)
                    self.bytes_read += len(chunk)
                    self._split(self._partial + chunk, batch)
        except OSError as exc:
            raise TailError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        return batch

    def _split(self, data: bytes, batch: Batch) -> None:
        *complete, self._partial = data.split(b"\n")
        if len(self._partial) > MAX_LINE:
            self._partial = b""
            batch.skipped += 1
        for raw in complete:
            self.line_no += 1
            parse(raw, self.line_no, batch, self.parse_line)

    def finish(self) -> Batch:
        """The writer is done (post-mortem): a held-back partial line is a truncated line."""
        batch = Batch()
        if self._partial.strip():
            self.line_no += 1
            parse(self._partial, self.line_no, batch, self.parse_line)
        self._partial = b""
        return batch

    def _read_zst(self) -> Batch:
        try:
            import zstandard
        except ImportError:  # pragma: no cover - a declared dependency
            raise TailError("cannot read .jsonl.zst: the zstandard module is missing") from None
        try:
            st = os.stat(self.path)
            sig = (st.st_mtime_ns, st.st_size)
            if sig == self._zst_sig:
                return Batch()
            with open(self.path, "rb") as fh:
                reader = zstandard.ZstdDecompressor().stream_reader(fh)
                data = b"".join(iter(lambda: reader.read(CHUNK), b""))
        except (OSError, zstandard.ZstdError) as exc:
            raise TailError(f"cannot read {self.path}: {exc}") from None
        batch = Batch(reset=self._zst_sig is not None)
        self._zst_sig = sig
        self.line_no, self._partial = 0, b""
        self.bytes_read += st.st_size
        self._split(data, batch)
        extra = self.finish()
        batch.lines += extra.lines
        batch.skipped += extra.skipped
        return batch


def parse(raw: bytes, number: int, batch: Batch,
          parse_line: Callable[[bytes], dict[str, Any] | None] = json_line) -> None:
    raw = raw.strip()
    if not raw:
        return
    obj = parse_line(raw)
    if obj is None:
        batch.skipped += 1
    else:
        batch.lines.append((number, obj))
