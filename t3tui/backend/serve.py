"""`t3tui serve`: run the reference orchestration backend until interrupted."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Any

from t3tui.backend.auth import fingerprint, generate_token, register_secret, scrub
from t3tui.backend.provider.faults import FAULTS
from t3tui.backend.scenarios import available
from t3tui.backend.store import StoreError
from t3tui.model.wiretext import DisplayFormatter

TOKEN_ENV = "T3TUI_SERVE_TOKEN"
LISTENING_PREFIX = "t3tui serve: listening on "

log = logging.getLogger("t3tui.backend.serve")


class _HelpFormatter(argparse.HelpFormatter):
    # scenario and fault names hold hyphens: wrap between words, never inside a name
    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class ServeError(Exception):
    """A startup problem with a message meant for the user."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        formatter_class=_HelpFormatter,
        help="run the reference orchestration backend (T3 protocol 2) with scripted agents",
        description=(
            "Run the reference T3 Code orchestration backend: the same HTTP routes, tickets and "
            "websocket RPC as a T3 V2 server, with scripted agents that run real processes. "
            "Runs until interrupted (Ctrl+C, SIGTERM or SIGHUP), then stops every agent "
            "process and exits 128+N (130, 143, 129); 0 when its input closes "
            "(--exit-with-stdin); 2 when it cannot start."
        ),
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)"
    )
    parser.add_argument(
        "--port", type=int, default=3773, help="port to bind (default: 3773; 0 picks a free port)"
    )
    parser.add_argument(
        "--token",
        dest="serve_token",
        metavar="TOKEN",
        help=(
            f"bearer token clients must present (default: ${TOKEN_ENV}, else a random token "
            "printed once at startup)"
        ),
    )
    parser.add_argument(
        "--token-file",
        dest="serve_token_file",
        type=Path,
        metavar="PATH",
        help="read the bearer token from PATH (keep it mode 0600); unlike --token, it is not "
             "visible to other local users in `ps`",
    )
    parser.add_argument(
        "--allow-origin",
        dest="allowed_origins",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept browser requests from ORIGIN (e.g. http://localhost:5173), "
             "repeatable; by default only the server's own origin (loopback) is accepted and "
             "others get 403",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help=(
            "directory of the event store; reuse it to keep every event across restarts, "
            "where a scenario that ran there is not run again (default: a temporary "
            "directory deleted on exit)"
        ),
    )
    parser.add_argument(
        "--scenario",
        dest="serve_scenario",
        default="none",
        metavar="NAME|PATH",
        # named from the bundled files themselves, so a new scenario can't be left out
        help=(
            f"scenario to start: a bundled one ({', '.join(available())}; each is described "
            "in docs/BACKEND.md), none, or the path of a scenario JSON file (default: none)"
        ),
    )
    parser.add_argument(
        "--scenario-param",
        dest="scenario_params",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=(
            "override one of the scenario's params, repeatable; VALUE is read as JSON when it "
            "parses (e.g. --scenario-param timeoutMs=2000 --scenario-param sleep=3)"
        ),
    )
    parser.add_argument(
        "--dispatch",
        choices=("parallel", "serial"),
        default="parallel",
        help=(
            "tool dispatch policy of the scripted agents: parallel, or serial (the next tool "
            "call starts only after the previous one returned, as in seed 000; "
            "default: parallel)"
        ),
    )
    parser.add_argument(
        "--t3-state",
        type=Path,
        default=None,
        metavar="DIR",
        help=(
            "also keep what a real T3 server keeps on disk, for post-mortem tools: "
            "DIR/userdata/statev2.sqlite (V2 event rows and projections) and the provider "
            "protocol log DIR/userdata/logs/provider/events.<thread>.log (off by default)"
        ),
    )
    parser.add_argument(
        "--fault",
        dest="faults",
        action="append",
        default=[],
        metavar="NAME",
        help=(
            "turn on a named fault, repeatable (off by default). Known faults: "
            + "; ".join(f"{name}: {text}" for name, text in FAULTS.items())
        ),
    )
    parser.add_argument(
        "--print-url-file",
        type=Path,
        metavar="PATH",
        help=(
            "once listening, write {url, wsUrl, port, pid} as JSON to PATH, removed on exit "
            "(the token only with --url-file-token)"
        ),
    )
    parser.add_argument(
        "--url-file-token",
        action="store_true",
        help="also write the token into the --print-url-file file (created with mode 0600)",
    )
    parser.add_argument(
        "--remove-data-dir",
        action="store_true",
        help="delete --data-dir on exit (for a parent that made it for this server alone, "
             "such as the demo: the server outlives a parent killed outright)",
    )
    parser.add_argument(
        "--exit-with-stdin",
        action="store_true",
        help=(
            "also stop when standard input reaches end of file; lets a parent process tie the "
            "server's life (and its agents') to its own"
        ),
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="warning",
        help="server log level on stderr; tokens and tickets are never logged (default: warning)",
    )


def run(args: argparse.Namespace) -> int:
    # Log lines quote client input (a refused command's text): DisplayFormatter keeps each
    # one inert; tracebacks only at debug level.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(DisplayFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s",
                                          tracebacks=args.log_level == "debug", scrub=scrub))
    logging.basicConfig(level=getattr(logging, args.log_level.upper()), handlers=[handler])
    # The event store and provider logs hold prompts and code: every file this process (and
    # its agents) creates is private, whatever umask it was started with.
    os.umask(0o077)
    try:
        return asyncio.run(_serve(args))
    except ServeError as error:
        print(f"t3tui serve: {error}", file=sys.stderr)
        return 2


async def _serve(args: argparse.Namespace) -> int:
    from t3tui.backend.server import BackendOptions, open_backend

    if not 0 <= args.port <= 65535:
        raise ServeError(f"--port must be between 0 and 65535, got {args.port}")
    token = args.serve_token or _token_from_file(args.serve_token_file) \
        or os.environ.get(TOKEN_ENV) or ""
    generated = not token
    if generated:
        token = generate_token()
    register_secret(token)
    scenario = None if args.serve_scenario == "none" else args.serve_scenario
    params = _parse_params(args.scenario_params)
    with _data_dir(args.data_dir, remove=args.remove_data_dir) as data_dir:
        options = BackendOptions(
            data_dir=data_dir,
            token=token,
            host=args.host,
            port=args.port,
            scenario=scenario,
            scenario_params=params,
            scenario_in_background=True,
            dispatch=args.dispatch,
            faults=tuple(args.faults),
            t3_state=args.t3_state,
            allowed_origins=tuple(args.allowed_origins),
        )
        signalled: list[int] = []
        stop = _stop_event(watch_stdin=args.exit_with_stdin, signalled=signalled)
        try:
            async with contextlib.AsyncExitStack() as stack:
                try:
                    backend = await stack.enter_async_context(open_backend(options))
                except (ValueError, StoreError) as error:
                    raise ServeError(str(error)) from None
                except OSError as error:
                    reason = error.strerror or str(error)
                    raise ServeError(
                        f"cannot listen on {args.host}:{args.port}: {reason}"
                    ) from None
                if args.print_url_file:  # first, so that whoever reads stdout finds it
                    _write_url_file(args.print_url_file, backend, args.url_file_token)
                _announce(backend.url, token if generated else None)
                _warn_if_exposed(args.host, backend.port)
                log.info("token %s, data dir %s", fingerprint(token), data_dir)
                await stop.wait()
                log.info("shutting down")
        finally:
            if args.print_url_file:
                with contextlib.suppress(OSError):
                    args.print_url_file.unlink()
    return 128 + signalled[0] if signalled else 0


def _token_from_file(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ServeError(f"cannot read --token-file {path}: {reason}") from None
    if not token:
        raise ServeError(f"--token-file {path} is empty")
    return token


def is_loopback_host(host: str) -> bool:
    if host.strip("[]").lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _warn_if_exposed(host: str, port: int) -> None:
    """Binding beyond loopback is allowed, never silent."""
    if is_loopback_host(host):
        return
    where = "every network interface" if host in ("0.0.0.0", "::", "") else host
    print(
        f"t3tui serve: WARNING: listening on {where} (port {port}), not only loopback: anyone "
        "who can reach this machine on that port can try the token, and everything after it "
        "(prompts, agent output, commands) travels in clear text over plain HTTP. Prefer the "
        "default 127.0.0.1 with an SSH tunnel.",
        file=sys.stderr, flush=True,
    )


def _parse_params(pairs: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise ServeError(f"--scenario-param needs NAME=VALUE, got {pair!r}")
        try:
            params[name] = json.loads(text)
        except ValueError:
            params[name] = text
    return params


def _announce(url: str, generated_token: str | None) -> None:
    if generated_token is not None:
        hint = (
            f"connect: t3tui --url {url} --token {generated_token}  (generated token, shown once)"
        )
    else:
        hint = f"connect: t3tui --url {url} --token <your token>"
    print(f"{LISTENING_PREFIX}{url}\n{hint}", flush=True)


def _write_url_file(path: Path, backend: Any, include_token: bool) -> None:
    body = {"url": backend.url, "wsUrl": backend.ws_url, "port": backend.port, "pid": os.getpid()}
    if include_token:
        body["token"] = backend.token
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(body, handle)
    os.replace(tmp, path)


@contextlib.contextmanager
def _data_dir(given: Path | None, *, remove: bool = False) -> Any:
    if given is not None:
        try:
            given.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise ServeError(f"cannot use --data-dir {given}: {error.strerror or error}") from None
        try:
            yield given
        finally:
            if remove:
                shutil.rmtree(given, ignore_errors=True)
        return
    temp = Path(tempfile.mkdtemp(prefix="t3tui-serve-"))
    try:
        yield temp
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _stop_event(*, watch_stdin: bool, signalled: list[int]) -> asyncio.Event:
    """Set on SIGINT, SIGTERM or SIGHUP (noted in `signalled`: the exit code is 128+N after
    the clean shutdown), or with `watch_stdin` when standard input closes."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        signalled.append(signum)
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, on_signal, signum)
    if watch_stdin:

        def wait_for_eof() -> None:
            # os.read on the raw descriptor: a daemon thread blocked inside sys.stdin's buffered
            # reader would hold its lock and abort the interpreter at exit.
            with contextlib.suppress(OSError):
                while os.read(0, 4096):
                    pass
            with contextlib.suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=wait_for_eof, name="stdin-eof", daemon=True).start()
    return stop
