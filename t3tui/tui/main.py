"""`t3tui` (no subcommand): pick the data source, run the app, clean up.

- `--url/--token` (or `T3TUI_*`/`T3CODE_*`): supervise that server.
- Neither: start the reference backend in a child process (demo scenario, free loopback
  port), supervise it, and stop it on exit. The child also watches its stdin, so it stops
  even if this process is killed outright: no orphans.
- `--frames NAME|PATH`: replay recorded frames (no server; read-only).

Every startup problem is one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from t3tui.client.secret import URL_ENV, Secret, Target, TargetError, resolve_target
from t3tui.tui.config import ConfigError, TuiConfig, load_config

EXIT_ERROR = 2


def _error(message: str) -> int:
    print(f"t3tui: {message}", file=sys.stderr)
    return EXIT_ERROR


def _config(args: argparse.Namespace) -> TuiConfig:
    flags: dict[str, Any] = {
        "keys": getattr(args, "keys", None),
        "bell": getattr(args, "bell", None),
        "theme": getattr(args, "theme", None),
        "checkin_timeout": getattr(args, "checkin_timeout", None),
    }
    return load_config(getattr(args, "config", None), flags=flags)


def run_app(args: argparse.Namespace) -> int:
    try:
        config = _config(args)
    except ConfigError as exc:
        return _error(str(exc))
    frames = getattr(args, "frames", None)
    url_given = bool(args.url or any(os.environ.get(name) for name in URL_ENV))
    backend = None
    try:
        if frames:
            from t3tui.tui.frames import FramesError, FrameSource, load_frames

            try:
                source: Any = FrameSource(load_frames(frames), label=f"recorded: {frames}")
            except FramesError as exc:
                return _error(str(exc))
        else:
            from t3tui.tui.source import LiveSource

            if url_given:
                try:
                    target = resolve_target(args.url, args.token)
                except TargetError as exc:
                    return _error(str(exc))
                source = LiveSource(target)
            else:
                backend, target = _start_demo(args.scenario)
                if backend is None:
                    return EXIT_ERROR
                source = LiveSource(target, label=f"demo {target.base_url}",
                                    backend_exit=backend.poll)
        from t3tui.tui.app import SupervisorApp

        app = SupervisorApp(source, config=config, handle_signals=True)
        app.run()
        return int(app.return_code or 0)
    except KeyboardInterrupt:
        return 130
    finally:
        if backend is not None:
            backend.stop()


def _start_demo(scenario: str) -> tuple[Any, Target]:
    from t3tui.backend.testing import BackendProcess, BackendStartError

    print(f"t3tui: starting the demo backend ({scenario})…", file=sys.stderr, flush=True)
    backend = BackendProcess(scenario=scenario)
    try:
        backend.start()
    except (BackendStartError, OSError) as exc:
        backend.stop()
        _error(f"the demo backend did not start: {exc}")
        return None, Target("", Secret(""))
    return backend, Target(backend.url, Secret(backend.token))
