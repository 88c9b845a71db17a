"""`t3tui` with no subcommand: open the supervisor app.

Without a server (no `--url` and no `T3TUI_URL`/`T3CODE_URL`), start the embedded reference
backend on a free loopback port with the demo scenario, supervise it, and stop it on exit.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="T3 Code server base URL (env: T3TUI_URL, T3CODE_URL)")
    parser.add_argument(
        "--token", help="bearer token (env: T3TUI_TOKEN, T3CODE_TOKEN); never logged"
    )
    parser.add_argument(
        "--config", metavar="PATH", help="config file (default: ~/.config/t3tui/config.toml)"
    )
    parser.add_argument(
        "--scenario",
        default="demo",
        help="scenario for the embedded demo backend when no --url is given (default: demo)",
    )


def run(args: argparse.Namespace) -> int:
    from t3tui.tui.main import run_app

    return run_app(args)
