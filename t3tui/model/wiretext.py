"""Wire text becomes display text here, and only here.

Every string from a server or an agent (titles, model names, reasons, messages, errors, a
Defect's text) is untrusted: it may hold terminal controls (`ESC[2J`, `ESC]52;c;...` which
writes the clipboard, the 8-bit CSI `\\x9b`), bidi overrides that reorder what the user reads,
or lone surrogates (legal in JSON) that no terminal encoding can write. `display_text` turns
any of that into inert, visible, encodable text, for every output path: the TUI (through
`tui.labels.screen_safe`), human CLI output, reports, notifications and the terminal title.
Machine output (`--json`, `--ndjson`) does not use it: the JSON encoder escapes exactly.

What is done, character by character (never dropped: the user sees that something was there):
- C0 controls and DEL become their Unicode "control pictures": ESC is `␛`, NUL `␀`, BEL `␇`.
  A sequence cannot start without its ESC, so `ESC[2J` shows as `␛[2J`, harmlessly.
- C1 controls (U+0080..U+009F, e.g. the 8-bit CSI) and bidi embeddings, overrides and
  isolates (U+202A..U+202E, U+2066..U+2069) show as `\\x9b` / `\\u202e`.
- Lone surrogates become U+FFFD, so every encoder can write the result.
- Newline and tab are kept in multi-line text (a transcript); CR LF becomes LF. With
  `one_line=True` every line or tab break (LF, CR, TAB, VT, FF, NEL, U+2028, U+2029) is a
  space, so a title can never break a row.

Pure: no I/O, no Textual; `display_rich` works on a `rich.text.Text` by its own methods.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text

# Everything that is not safe to show as is (Python's re matches lone surrogates in a str);
# multi-line text keeps its newlines and tabs.
_UNSAFE = re.compile(
    "\r\n|[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE_LINES = re.compile(
    "\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_BREAKS = frozenset("\n\r\t\x0b\x0c\x85\u2028\u2029")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _visible(ch: str, one_line: bool) -> str:
    if ch == "\r\n":
        return " " if one_line else "\n"
    if one_line and ch in _BREAKS:
        return " "
    if ch in "\n\t":
        return ch
    if ch in "\u2028\u2029":
        return "\n"
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟ (␛ for ESC)
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if ch in _BIDI:
        return f"\\u{code:04x}"
    return "\ufffd"  # a lone surrogate


def _replace_one_line(match: re.Match[str]) -> str:
    return _visible(match.group(), True)


def _replace_lines(match: re.Match[str]) -> str:
    return _visible(match.group(), False)


def display_text(value: Any, *, one_line: bool = False) -> str:
    """`value` (normally a str from the wire; anything else is str()'d, since a hostile server
    sends wrong types too) as text that is safe to put on a terminal, in a notification or in
    a window title. The same string object when nothing needs changing."""
    text = value if isinstance(value, str) else _as_str(value)
    if one_line:
        if text.isprintable():  # the common case, and cheap: no control, no bidi, no surrogate
            return text
        return _UNSAFE.sub(_replace_one_line, text)
    if _UNSAFE_LINES.search(text) is None:
        return text
    return _UNSAFE_LINES.sub(_replace_lines, text)


def _as_str(value: Any) -> str:
    if value is None:
        return ""
    try:
        return str(value)
    except Exception:  # a hostile object's __str__: show its type, never raise
        return f"<{type(value).__name__}>"


def is_display_safe(text: str, *, one_line: bool = False) -> bool:
    """True when `display_text` would leave `text` as it is."""
    return display_text(text, one_line=one_line) is text


def display_rich(text: Text, *, one_line: bool = False) -> Text:
    """`display_text` for a `rich.text.Text`, keeping its styles (a replaced character keeps
    the style it had). The same object when nothing needs changing."""
    pattern = _UNSAFE if one_line else _UNSAFE_LINES
    cuts = [m.span() for m in pattern.finditer(text.plain)]
    if not cuts:
        return text
    offsets = [edge for span in cuts for edge in span]
    pieces = text.divide(offsets)  # [kept, cut, kept, cut, ..., kept]
    make = type(text)
    out = make("", style=text.style, justify=text.justify, overflow=text.overflow,
               no_wrap=text.no_wrap, end=text.end)
    for n, piece in enumerate(pieces):
        if n % 2 == 0:
            out.append_text(piece)
            continue
        shown = _visible(piece.plain, one_line)
        replaced = make(shown, style=piece.style)
        for span in piece.spans:
            replaced.stylize(span.style, 0, len(shown))
        out.append_text(replaced)
    return out


class DisplayFormatter(logging.Formatter):
    """A log formatter for a terminal: every record is one line of `display_text` (log
    messages quote wire text), and an exception is its one-line summary unless `tracebacks`
    (debug logging), so a hostile frame cannot print a traceback or an escape to stderr."""

    def __init__(self, fmt: str | None = None, *, tracebacks: bool = False,
                 scrub: Callable[[str], str] | None = None) -> None:
        super().__init__(fmt)
        self.tracebacks = tracebacks
        self.scrub = scrub  # e.g. the server's token redaction, over the whole line

    def format(self, record: logging.LogRecord) -> str:
        if not self.tracebacks and record.exc_info:
            exc = record.exc_info[1]
            record = logging.makeLogRecord(record.__dict__)
            record.msg = f"{record.getMessage()} ({type(exc).__name__}: {exc})"
            record.args = None
            record.exc_info = record.exc_text = None
        text = super().format(record)
        if self.scrub is not None:
            text = self.scrub(text)
        return display_text(text, one_line=not self.tracebacks)
