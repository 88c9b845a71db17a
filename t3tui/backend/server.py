"""The reference backend's websocket server: HTTP routes, `/ws`, and the RPC method table."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import Server, ServerConnection, serve

from t3tui.backend.auth import Authenticator, Clock, RedactingFilter, utc_now
from t3tui.backend.engine.errors import CommandRejected
from t3tui.backend.http import HttpRoutes, OriginPolicy, build_descriptor
from t3tui.backend.rpc import Method, RpcConnection, RpcDie, RpcFailure
from t3tui.backend.subscriptions import (
    read_projection,
    required_string,
    subscribe_shell,
    subscribe_thread,
    wire,
)
from t3tui.protocol import ProtocolError, contract, methods
from t3tui.protocol.commands import LaunchThreadInput, decode_command
from t3tui.protocol.errors import DispatchCommandError, ThreadLaunchError

if TYPE_CHECKING:
    from t3tui.backend.engine import Engine

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 3773
# Snapshots of a busy demo are large; commands carry task texts of up to 120 000 characters.
MAX_FRAME_BYTES = 16 * 1024 * 1024


def private_dir(path: Path) -> None:
    """Make our data directory 0700 (it may predate us, or come from a loose umask)."""
    try:
        if path.stat().st_uid == os.getuid() and path.stat().st_mode & 0o077:
            path.chmod(0o700)
            log.info("data dir %s made private (0700)", path)
    except OSError as error:
        log.warning("cannot make data dir %s private: %s", path, error.strerror or error)


def environment_id_for(data_dir: Path) -> str:
    """A stable environment id: the same data directory is the same environment."""
    return "env-" + hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:12]


def provider_list(engine: Any) -> list[dict[str, Any]]:
    """The provider instances a client can name in a `modelSelection` (read live: scenarios
    add instances)."""
    found = []
    for name, provider in getattr(engine, "providers", {}).items():
        config = getattr(provider, "config", None)
        models = [getattr(config, "model", None), *getattr(config, "models", ())]
        found.append(
            {
                "instanceId": name,
                "driver": getattr(config, "driver", "scripted"),
                "enabled": True,
                "models": [{"slug": m} for m in dict.fromkeys(models) if m],
            }
        )
    return found


class BackendServer:
    """Serves one engine over HTTP + websocket until closed."""

    def __init__(
        self,
        engine: Engine,
        auth: Authenticator,
        *,
        data_dir: Path,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        label: str = "t3tui reference backend",
        allowed_origins: tuple[str, ...] = (),
    ) -> None:
        self.engine = engine
        self.host = host
        self._requested_port = port
        self._descriptor = build_descriptor(environment_id_for(data_dir), label)
        self._routes = HttpRoutes(auth, self._descriptor, OriginPolicy(host, allowed_origins))
        self._cwd = str(getattr(engine, "workspace", data_dir))
        self._server: Server | None = None
        self._methods = self._method_table()
        self._ws_logger = logging.getLogger("t3tui.backend.websockets")
        if not any(isinstance(f, RedactingFilter) for f in self._ws_logger.filters):
            self._ws_logger.addFilter(RedactingFilter())

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the server is not started")
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """The HTTP base URL, e.g. `http://127.0.0.1:3773`."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def ws_url(self) -> str:
        """The websocket endpoint, without its query (a ticket is added per connect)."""
        return "ws" + self.url.removeprefix("http") + "/ws"

    async def start(self) -> None:
        self._server = await serve(
            self._handle,
            self.host,
            self._requested_port,
            process_request=self._routes.process_request,
            logger=self._ws_logger,
            max_size=MAX_FRAME_BYTES,
            # No permessage-deflate (Node's `ws` leaves it off by default too): on loopback it
            # only costs one zlib pass per frame per subscriber.
            compression=None,
        )
        log.info("listening on %s", self.url)

    async def close(self) -> None:
        if self._server is None:
            return
        self._server.close()
        await self._server.wait_closed()
        self._server = None

    async def _handle(self, ws: ServerConnection) -> None:
        await RpcConnection(ws, self._methods, gate=self.engine.core).serve()

    def _method_table(self) -> dict[str, Method]:
        engine = self.engine

        async def get_config(payload: dict[str, Any]) -> Any:
            return {
                "environment": self._descriptor.to_wire(),
                "auth": {"policy": "static-bearer-token"},
                "cwd": self._cwd,
                "providers": provider_list(engine),
                "settings": {},
            }

        async def probe(payload: dict[str, Any]) -> Any:
            return {}

        async def shell(payload: dict[str, Any], sink: Any) -> None:
            await subscribe_shell(engine, payload, sink)

        async def thread(payload: dict[str, Any], sink: Any) -> None:
            await subscribe_thread(engine, payload, sink)

        async def projection(payload: dict[str, Any]) -> Any:
            return read_projection(engine, required_string(payload, "threadId"))

        return {
            methods.SERVER_GET_CONFIG: Method("unary", get_config),
            methods.SERVER_PROBE: Method("unary", probe),
            methods.SUBSCRIBE_SHELL: Method("stream", shell),
            methods.SUBSCRIBE_THREAD: Method("stream", thread),
            methods.GET_THREAD_PROJECTION: Method("unary", projection),
            methods.DISPATCH_COMMAND: Method("unary", self._dispatch),
            methods.LAUNCH_THREAD: Method("unary", self._launch),
        }

    async def _dispatch(self, payload: dict[str, Any]) -> Any:
        command = decode_command(payload)
        if payload.get("type") in contract.COMMAND_TYPES:
            # as upstream's schema decode: a value outside the contract never reaches an entity
            _refuse_off_contract(f"{payload['type']} command", contract.Command, payload)
        try:
            sequence = await self.engine.dispatch(command)
        except CommandRejected as rejected:
            error = DispatchCommandError(
                command_id=str(payload.get("commandId", "")),
                command_type=str(payload.get("type", "")),
                message=rejected.message,
                **({"detail": rejected.detail} if rejected.detail is not None else {}),
            )
            raise RpcFailure(wire(error)) from None
        return {"sequence": sequence}

    async def _launch(self, payload: dict[str, Any]) -> Any:
        try:
            launch = LaunchThreadInput.from_wire(payload)
        except ProtocolError as error:
            raise RpcDie(error.message) from None
        _refuse_off_contract("launchThread input", contract.LaunchThreadInput, payload)
        try:
            return await self.engine.launch_thread(launch)
        except CommandRejected as rejected:
            error = ThreadLaunchError(
                command_id=str(payload.get("commandId", "")),
                project_id=str(payload.get("projectId", "")),
                message=rejected.message,
            )
            raise RpcFailure(wire(error)) from None


def _refuse_off_contract(what: str, schema: Any, payload: dict[str, Any]) -> None:
    """Die (as a payload failing upstream's schema does) naming the first problem."""
    problems = contract.violations(schema, payload)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise RpcDie(f"invalid {what}: {problems[0]}{more}")


@dataclass(frozen=True)
class BackendOptions:
    """Everything needed to run one backend; `port=0` picks a free port.

    `scenario` is a bundled name or a JSON path, `scenario_params` overrides its `params`
    (e.g. shorter timings in tests). With `scenario_in_background`, the server is reachable
    while the scenario's steps still run; otherwise `open_backend` returns after the steps.
    """

    data_dir: Path
    token: str
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    scenario: str | Path | None = None
    scenario_params: dict[str, Any] = field(default_factory=dict)
    scenario_in_background: bool = False
    dispatch: str = "parallel"
    faults: tuple[str, ...] = ()
    clock: Clock = utc_now
    # Browser origins allowed besides the server's own (see `http.OriginPolicy`).
    allowed_origins: tuple[str, ...] = ()
    t3_state: Path | None = None  # keep a T3-layout state dir there (t3tui.backend.t3state)


@dataclass
class RunningBackend:
    """A started backend: where to reach it and the engine behind it."""

    server: BackendServer
    engine: Engine
    token: str
    data_dir: Path
    scenario_task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ws_url(self) -> str:
        return self.server.ws_url

    @property
    def port(self) -> int:
        return self.server.port


@asynccontextmanager
async def open_backend(options: BackendOptions) -> AsyncIterator[RunningBackend]:
    """Start store, engine, server and scenario; on exit stop them all (agents included).

    Bad settings (unknown fault or scenario, unusable data dir) raise `ValueError` and a port
    that cannot be bound raises `OSError`, both before anything runs.
    """
    from t3tui.backend.scenarios import load_scenario

    scenario = (
        load_scenario(options.scenario, options.scenario_params or None)
        if options.scenario
        else None
    )
    try:
        options.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        private_dir(options.data_dir)
    except OSError as error:
        raise ValueError(f"cannot use data dir {options.data_dir}: {error.strerror}") from None
    engine = build_engine(options)
    mirror = None
    if options.t3_state is not None:
        from t3tui.backend.t3state import T3StateMirror

        try:
            mirror = T3StateMirror(options.t3_state)
        except (OSError, sqlite3.Error) as error:
            await engine.close()
            raise ValueError(f"cannot use --t3-state {options.t3_state}: {error}") from None
        engine.listen(mirror.on_event)
        engine.runs.taps.append(mirror.on_notification)
    try:
        try:
            await engine.start()
        except OSError as error:  # its workspace: not a port problem, and the store must close
            where = f"{error.filename}: " if error.filename else ""
            raise ValueError(
                f"cannot use data dir {options.data_dir}: {where}{error.strerror or error}"
            ) from None
        auth = Authenticator(options.token, clock=options.clock)
        server = BackendServer(
            engine, auth, data_dir=options.data_dir, host=options.host, port=options.port,
            allowed_origins=options.allowed_origins,
        )
        await server.start()
        backend = RunningBackend(server, engine, options.token, options.data_dir)
        try:
            if scenario is not None and options.scenario_in_background:
                backend.scenario_task = asyncio.create_task(_run_scenario(engine, scenario))
            elif scenario is not None:
                await engine.run_scenario(scenario)
            yield backend
        finally:
            if backend.scenario_task is not None:
                backend.scenario_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await backend.scenario_task
            await server.close()
    finally:
        await engine.close()
        if mirror is not None:
            mirror.close()


async def _run_scenario(engine: Engine, scenario: Any) -> None:
    try:
        await engine.run_scenario(scenario)
    except asyncio.CancelledError:
        raise
    except Exception as error:
        # The server stays up: what the steps did so far is still worth supervising.
        log.error("scenario %s stopped: %s", getattr(scenario, "name", scenario), error)


def build_engine(options: BackendOptions) -> Engine:
    """The store and engine for `options` (the engine owns the store from here on)."""
    from t3tui.backend.engine import Engine, EngineConfig, EventStore

    config = EngineConfig(
        data_dir=options.data_dir, dispatch=options.dispatch, faults=options.faults
    )
    return Engine(EventStore.open(options.data_dir), config)
