"""The `t3tui` command.

With no subcommand it opens the supervisor: on the embedded live demo when no server is given,
or on the server named by `--url`/`--token` (or `T3TUI_URL`/`T3CODE_URL` and
`T3TUI_TOKEN`/`T3CODE_TOKEN`). Subcommands live next to the layer they drive and are imported
lazily, so `t3tui status` never pays for Textual and `t3tui serve` never loads the client.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from t3tui import __version__

# subcommand name -> module providing `register(subparsers)` and `run(args) -> int`
SUBCOMMANDS: dict[str, str] = {
    "serve": "t3tui.backend.serve",
    "status": "t3tui.headless.status",
    "watch": "t3tui.headless.watch",
    "checkin": "t3tui.headless.checkin",
    "settle": "t3tui.headless.settle",
    "interrupt": "t3tui.headless.interrupt",
    "web": "t3tui.tui.web",
    "forward": "t3tui.headless.forward",
    "dispose": "t3tui.headless.dispose",
    "acknowledge": "t3tui.headless.acknowledge",
    "record": "t3tui.headless.record",
    "report": "t3tui.headless.report",
}
APP_MODULE = "t3tui.tui.launch"
# The headless commands end on a signal alike (`headless.common.run_async`, and `main` for
# Ctrl-C): each one's --help says so, as the README's exit-code contract does.
HEADLESS = frozenset(SUBCOMMANDS) - {"serve", "web"}
SIGNAL_EXITS = ("A signal ends it after its cleanup: 130 on Ctrl-C, 143 on SIGTERM, 129 on "
                "SIGHUP.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="t3tui",
        description=(
            "Terminal supervisor for T3 Code agent delegation. Without a subcommand, opens the "
            "live tree: on the embedded demo backend, or on the server given by --url/--token."
        ),
    )
    # unit files, bug reports and the journal need to say which t3tui wrote them
    parser.add_argument("--version", action="version", version=f"t3tui {__version__}")
    importlib.import_module(APP_MODULE).add_arguments(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS.values():
        importlib.import_module(module).register(subparsers)
    for name in HEADLESS:
        sub = subparsers.choices[name]
        sub.description = f"{sub.description} {SIGNAL_EXITS}"
    return parser


# What a shell reports for a command killed by SIGPIPE (128 + 13).
EXIT_BROKEN_PIPE = 141


def _never_unencodable() -> None:
    # Wire text is made encodable where it becomes display text (model.wiretext); this is the
    # last line behind it: a terminal whose encoding lacks a glyph (LANG=C, an ASCII pipe)
    # gets a `?` instead of a UnicodeEncodeError traceback.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def _headless_logging() -> None:
    # Client warnings (a malformed frame skipped) quote wire text: one inert line each on
    # stderr, never an escape sequence or a traceback (logging's last-resort handler printed
    # both). `serve` configures its own; the app keeps stderr off the screen.
    from t3tui.model.wiretext import DisplayFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(DisplayFormatter("t3tui: %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


# Options whose value may start with "-" (`--at -30s`: from the end). argparse reads such a
# value as an option unless it looks like a negative number, so the pair is joined first.
DASH_VALUES = frozenset({"--at"})


def _join_dash_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    pending = False
    for arg in argv:
        if pending and arg[:1] == "-" and arg[1:2].isdigit():
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
        pending = arg in DASH_VALUES
    return out


def main(argv: Sequence[str] | None = None) -> int:
    _never_unencodable()
    try:
        parser = build_parser()
        args = parser.parse_args(_join_dash_values(sys.argv[1:] if argv is None else argv))
        if args.command in SUBCOMMANDS and args.command != "serve" and argv is None:
            _headless_logging()
        if args.command != "serve" and argv is None:  # a process of its own, not a test's call
            from t3tui.client import collector
            collector.configure()
        module = SUBCOMMANDS.get(args.command or "", APP_MODULE)
        return int(importlib.import_module(module).run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `t3tui status | head`: the reader left. Point stdout at /dev/null so the flush at
        # exit does not fail again, and end quietly, as a SIGPIPE'd command would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
