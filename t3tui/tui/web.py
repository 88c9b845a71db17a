"""`t3tui web [--port P]`: the supervisor in a browser tab, through textual-serve.

textual-serve runs one app process per browser connection and relays its terminal over a
websocket to xterm.js. It has no authentication of its own, so this server adds it:

- it binds 127.0.0.1 only, and answers only requests whose `Host` is that address or
  `localhost` on its port (a DNS-rebinding page gets 421);
- it prints one URL carrying a fresh access token, good once: opening it sets an HttpOnly,
  SameSite=Strict session cookie and redirects to `/`, so the token leaves the address bar,
  and another browser given the same URL later is refused (403); the page, the
  websocket and downloads need the cookie (401 without), the websocket also a same-origin
  `Origin` (403 otherwise: another site cannot drive the app);
- no access log (it would hold the token), and the page loads nothing from outside (the
  stock page fetches a web font).

The servers to supervise are resolved here once (tokens from `T3TUI_TOKEN_<NAME>` or token
commands) and handed to each app process by name and URL on its command line, tokens in its
environment, never in argv. Without a server, the demo's two backends start here once and
every browser tab watches the same ones. A tab's app ends when its socket closes, when
`t3tui web` stops, or when its input ends however that came about (`tabdriver.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import os
import re
import secrets
import shlex
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

DEFAULT_PORT = 8773
COOKIE = "t3tui_web"
LOOPBACK = "127.0.0.1"
# the stock page's web font: a request to the internet, and nothing works better with it
_FONT_LINK = re.compile(r"<link[^>]*fonts\.googleapis\.com[^>]*/>\s*", re.S)
Handler = Callable[[Any], Awaitable[Any]]


def register(subparsers: argparse._SubParsersAction) -> None:
    from t3tui.tui.launch import add_arguments

    parser = subparsers.add_parser(
        "web",
        help="serve the supervisor to a browser tab on loopback (textual-serve)",
        description=(
            "Serve the same app to a browser on 127.0.0.1 only. Prints one URL with an access "
            "token: open it in a browser on this machine (or through an SSH tunnel). Every tab "
            "runs its own app on the same servers: --env/--url as for t3tui, or the demo. Runs "
            "until interrupted (Ctrl+C, SIGTERM or SIGHUP), then ends every tab's app and "
            "exits 128+N (130, 143, 129); 2 when it cannot start."
        ),
    )
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT,
                        help=f"port on 127.0.0.1 (default: {DEFAULT_PORT}; 0: a free one)")
    add_arguments(parser)
    for action in parser._actions:  # values given before `web` are kept
        if action.dest not in ("help", "port"):
            action.default = argparse.SUPPRESS


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    return port


def app_arguments(args: argparse.Namespace) -> list[str]:
    """The app options of `args` that each app process takes as they are."""
    argv: list[str] = []
    for dest, flag in (("config", "--config"), ("theme", "--theme"),
                       ("checkin_timeout", "--checkin-timeout"), ("frames", "--frames"),
                       ("codex_home", "--codex-home"), ("claude_home", "--claude-home")):
        value = getattr(args, dest, None)
        if value is not None:
            argv += [flag, str(value)]
    for key in getattr(args, "keys", None) or []:
        argv += ["--key", key]
    bell = getattr(args, "bell", None)
    if bell is not None:
        argv.append("--bell" if bell else "--no-bell")
    if getattr(args, "provider_records", True) is False:
        argv.append("--no-provider-records")
    return argv


class Servers:
    """Which servers the app processes supervise: `--env`/`--url` resolved once, or the
    demo's backends started once (stopped by `close()`)."""

    def __init__(self) -> None:
        self.argv: list[str] = []
        self.env: dict[str, str] = {}
        self._backends: list[Any] = []
        self._dirs: list[str] = []

    def resolve(self, args: argparse.Namespace) -> bool:
        """False when a demo backend did not start (said on stderr). TargetError on bad
        servers or tokens."""
        from t3tui.client.environments import resolve_environments, token_variable
        from t3tui.client.secret import URL_ENV, TargetError, resolve_target

        if getattr(args, "frames", None):
            return True
        url = getattr(args, "url", None)
        url_given = bool(url or any(os.environ.get(n) for n in URL_ENV))
        flags = getattr(args, "envs", None)
        if flags and url:
            raise TargetError("give either --url or --env, not both")
        envs = resolve_environments(flags, getattr(args, "config", None),
                                    use_config_alone=not url_given)
        if envs:
            self._named([(e.name, e.target) for e in envs], token_variable)
        elif url_given:
            target = resolve_target(url, getattr(args, "token", None))
            self.argv += ["--url", target.base_url]
            self.env["T3TUI_TOKEN"] = target.token.reveal()
        else:
            return self._demo(getattr(args, "scenario", None), token_variable)
        return True

    def _named(self, targets: list[tuple[str, Any]], variable: Callable[[str], str]) -> None:
        for name, target in targets:
            self.argv += ["--env", f"{name}={target.base_url}"]
            self.env[variable(name)] = target.token.reveal()

    def _demo(self, scenario: str | None, variable: Callable[[str], str]) -> bool:
        """The demo's backends, as `t3tui` starts them: two environments, or with
        `--scenario` one server shown without environment nodes."""
        from t3tui.tui.main import DEMO_ENVIRONMENTS, _start_demo

        wanted = [("", scenario)] if scenario else list(DEMO_ENVIRONMENTS)
        targets = []
        for name, scene in wanted:
            backend, target = _start_demo(scene, self._dirs, name)
            if backend is None:
                return False
            self._backends.append(backend)
            targets.append((name, target))
        if scenario:
            self.argv += ["--url", targets[0][1].base_url]
            self.env["T3TUI_TOKEN"] = targets[0][1].token.reveal()
        else:
            self._named(targets, variable)
        return True

    def close(self) -> None:
        import shutil

        for backend in self._backends:
            backend.stop()
        for path in self._dirs:
            shutil.rmtree(path, ignore_errors=True)


def make_server(command: str, *, port: int, token: str) -> Any:
    """A textual-serve `Server` with the guard of the module docstring."""
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.server import Server

    session = secrets.token_urlsafe(32)
    spent: list[bool] = []  # the URL's token admits one browser, once (then the cookie does)

    class GuardedServer(Server):  # type: ignore[misc]
        async def _make_app(self) -> web.Application:
            app = web.Application(middlewares=[self._guard])
            page = (self.templates_path / "app_index.html").read_text(encoding="utf-8")
            aiohttp_jinja2.setup(app, loader=jinja2.DictLoader(
                {"app_index.html": _FONT_LINK.sub("", page)}))
            app.add_routes([
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ])
            return app

        def _origins(self) -> set[str]:
            return {f"{LOOPBACK}:{self.port}", f"localhost:{self.port}"}

        @web.middleware
        async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
            if request.host not in self._origins():
                return web.Response(status=421, text="t3tui web: unexpected Host\n")
            if request.path.startswith("/static/"):
                return await handler(request)  # the library's own scripts and styles
            given = request.query.get("token")
            admitted = hmac.compare_digest(request.cookies.get(COOKIE, "").encode(),
                                           session.encode())
            if request.path == "/" and given is not None:
                if admitted:
                    return web.HTTPSeeOther("/")  # the browser that used the URL, again
                if not hmac.compare_digest(given.encode(), token.encode()):
                    return web.Response(status=403, text="t3tui web: wrong token\n")
                if spent:
                    return web.Response(status=403, text=(
                        "t3tui web: this URL was used already: its token admits one browser, "
                        "once. Restart t3tui web for a new URL.\n"))
                spent.append(True)
                response = web.HTTPSeeOther("/")
                response.set_cookie(COOKIE, session, httponly=True, samesite="Strict", path="/")
                return response
            if not admitted:
                return web.Response(status=401, text=(
                    "t3tui web: open the URL that `t3tui web` printed (it carries the token)\n"))
            if request.path == "/ws":
                origin = request.headers.get("Origin", "")
                if origin.removeprefix("http://") not in self._origins():
                    return web.Response(status=403, text="t3tui web: cross-origin websocket\n")
            return await handler(request)

        async def on_startup(self, app: web.Application) -> None:
            pass  # the library's banner; ours is printed by `run`

    return GuardedServer(command, host=LOOPBACK, port=port, title="t3tui")


async def serve(server: Any, ready: Callable[[int], None]) -> int:
    """Serve until SIGINT, SIGTERM or SIGHUP, and return that signal's number; `ready(port)`
    once listening. No access log: it would hold the token."""
    from aiohttp import web

    runner = web.AppRunner(await server._make_app(), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, LOOPBACK, server.port)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # the real one when 0 was asked for
        server.port = port
        server.public_url = f"http://{LOOPBACK}:{port}"
        stop = asyncio.Event()
        signalled: list[int] = []
        loop = asyncio.get_running_loop()

        def on_signal(signum: int) -> None:
            signalled.append(signum)
            stop.set()

        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, on_signal, signum)
        ready(port)
        await stop.wait()
        return signalled[0]
    finally:
        await runner.cleanup()  # closes the websockets: each app process is told to quit


def run(args: argparse.Namespace) -> int:
    from t3tui.client.secret import TargetError
    from t3tui.tui.app.config import ConfigError
    from t3tui.tui.main import _config, _error

    try:
        _config(args)  # a bad config is said here, not in every browser tab
    except ConfigError as exc:
        return _error(str(exc))
    servers = Servers()
    try:
        try:
            if not servers.resolve(args):
                return 2
        except TargetError as exc:
            return _error(str(exc))
        os.environ.update(servers.env)  # the app processes inherit the tokens, argv does not
        # textual-serve runs this through sh: `exec` makes the app its own child, so what
        # textual-serve or a signal does to that process reaches the app itself
        command = "exec " + shlex.join([sys.executable, "-m", "t3tui", *servers.argv,
                                        *app_arguments(args)])
        token = secrets.token_urlsafe(24)
        server = make_server(command, port=args.port, token=token)

        def ready(port: int) -> None:
            print(f"t3tui web: open http://{LOOPBACK}:{port}/?token={token}", flush=True)
            print("t3tui web: loopback only; the URL admits the first browser that opens it, "
                  "once: keep it private (from another machine: ssh -L). Ctrl+C stops.",
                  file=sys.stderr, flush=True)

        try:
            signum = asyncio.run(serve(server, ready))
        except OSError as exc:
            return _error(f"cannot serve on {LOOPBACK}:{args.port}: {exc.strerror or exc}")
        except KeyboardInterrupt:
            return 130
        return 128 + signum  # ended by a signal, as the app and every command say it
    finally:
        servers.close()

