"""`t3tui` (no subcommand): pick the data source, run the app, clean up.

- `--url/--token` (or `T3TUI_*`/`T3CODE_*`): supervise that server.
- `--env NAME=URL` (repeatable), or `[environments.NAME]` in the config file: supervise
  several servers, one tree node each (`t3tui.client.environments`, `tui/environments.py`).
- None of these: start the reference backend in child processes on free loopback ports,
  "laptop" (demo scenario) and "devbox" (parallel-probe), supervise both, and stop them on
  exit; `--scenario NAME` starts only one, on that scenario. A child also watches its stdin,
  so it stops even if this process is killed outright: no orphans.
- `--frames NAME|PATH`: replay recorded frames (no server; read-only).
- `--replay FILE`: a recording (`t3tui record`, `--record`) on its own clock, read-only.
- `--record FILE`: also record the supervised session (live server or demo); several
  environments record one file each, the environment's name inserted (`env_path`).

Every startup problem is one line on stderr and exit code 2, never a traceback: no terminal
(stdin or stdout not one, or TERM=dumb), a refused token or another protocol (the app ends
at once, `tui/quitting.py`). A quit with a stop in flight says so on stderr.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from t3tui.client.environments import config_path
from t3tui.client.secret import URL_ENV, Secret, Target, TargetError, resolve_target
from t3tui.headless.common import CommandError
from t3tui.model.wiretext import display_text
from t3tui.policy import PolicyError, PolicyFile, PolicySet
from t3tui.policy.switch import choose
from t3tui.proof.homes import OFF, ProofHomes, resolve_homes
from t3tui.tui.app.config import ConfigError, TuiConfig, load_config

EXIT_ERROR = 2


def _error(message: str) -> int:
    print(f"t3tui: {message}", file=sys.stderr)
    return EXIT_ERROR


def no_terminal() -> str:
    """Why the app cannot draw here ("" when it can): it needs a terminal on stdin and stdout
    that can move the cursor. Under `t3tui web` the app talks to the browser instead."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return ""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        which = "stdout" if not sys.stdout.isatty() else "stdin"
        return (f"the app needs a terminal and {which} is not one; in a script use "
                "`t3tui status` (or watch, report)")
    if os.environ.get("TERM", "") in ("dumb", "unknown"):
        return (f"TERM={os.environ['TERM']}: this terminal cannot draw the app; use "
                "`t3tui status` (or watch), or a terminal with a TERM such as xterm-256color")
    return ""


def _config(args: argparse.Namespace) -> TuiConfig:
    flags: dict[str, Any] = {
        "keys": getattr(args, "keys", None),
        "bell": getattr(args, "bell", None),
        "theme": getattr(args, "theme", None),
        "checkin_timeout": getattr(args, "checkin_timeout", None),
    }
    return load_config(getattr(args, "config", None), flags=flags)


def _policies(args: argparse.Namespace) -> tuple[PolicySet, PolicyFile | None]:
    """Checked before the app starts: a policy file that does not check is one line, exit 2."""
    config, required = config_path(getattr(args, "config", None), os.environ)
    policy = getattr(args, "policy", None)
    return choose(Path(policy).expanduser() if policy else None, config, required)


def homes_from(args: argparse.Namespace) -> ProofHomes:
    return resolve_homes(getattr(args, "codex_home", None), getattr(args, "claude_home", None),
                         enabled=getattr(args, "provider_records", True),
                         t3_home=getattr(args, "t3_home", None))


def run_app(args: argparse.Namespace) -> int:
    try:
        config = _config(args)
    except ConfigError as exc:
        return _error(str(exc))
    frames = getattr(args, "frames", None)
    replay = getattr(args, "replay", None)
    record = getattr(args, "record", None)
    if replay and (frames or record):
        return _error("--replay reads a recording: it takes neither --frames nor --record")
    url_given = bool(args.url or any(os.environ.get(name) for name in URL_ENV))
    backends: list[Any] = []
    demo_dirs: list[str] = []
    clock: Any = None
    recorder = None
    try:
        if replay:
            from t3tui.client.recording import RecordingError, read_recording
            from t3tui.tui.sources.replay import ReplaySource

            try:
                recording = read_recording(replay)
            except RecordingError as exc:
                return _error(str(exc))
            for warning in recording.warnings:
                print(f"t3tui: warning: {display_text(warning, one_line=True)}",
                      file=sys.stderr)
            source = ReplaySource(recording)
            clock = source.clock
            # a replay tells its news in the bar: no toasts, no bell
            config = replace(config, bell=False, toast=False)
        elif getattr(args, "t3_db", None) is not None:
            try:
                source, clock = _t3db_source(args)
            except CommandError as exc:
                return _error(str(exc))
        elif frames:
            from t3tui.tui.sources.frames import FramesError, FrameSource, load_frames

            try:
                source: Any = FrameSource(load_frames(frames), label=f"recorded: {frames}")
            except FramesError as exc:
                return _error(str(exc))
        else:
            try:
                source = _live_source(args, url_given, backends, demo_dirs)
            except TargetError as exc:
                return _error(str(exc))
            if source is None:
                return EXIT_ERROR
            if record:
                if not hasattr(source, "record_to"):
                    return _error("--record needs a live server session to record")
                try:
                    recorder = source.record_to(record)
                except OSError as exc:
                    return _error(f"cannot record to {record}: {exc.strerror or exc}"
                                  if exc.strerror else str(exc))
        if why := no_terminal():
            return _error(why)
        from t3tui.tui.app.app import SupervisorApp

        try:
            policies = _policies(args)
        except PolicyError as exc:
            return _error(str(exc))

        # the embedded demo plays its own seed 004 story (tui/autopilot.py)
        app = SupervisorApp(source, config=config, handle_signals=True,
                            autopilot=bool(backends),
                            **({"clock": clock} if clock is not None else {}))
        app.enable_policies(policies[0], on=bool(getattr(args, "act", False)),
                            dry_run=bool(getattr(args, "dry_run", False)), watched=policies[1])
        app.run()
        # said once the screen is restored, so it stays in the terminal
        for note in (app.fatal, app.quit_note):
            if note:
                print(f"t3tui: {display_text(note, one_line=True)}", file=sys.stderr)
        return int(app.return_code or 0)
    except KeyboardInterrupt:
        return 130
    finally:
        if recorder is not None:
            recorder.close()
        for backend in backends:
            backend.stop()
        for demo_dir in demo_dirs:
            shutil.rmtree(demo_dir, ignore_errors=True)


def _t3db_source(args: argparse.Namespace) -> tuple[Any, Any]:
    """T3's own database as of `--at`, read-only, with the provider records of that moment;
    the app's clock stands at that moment when one is given."""
    import asyncio

    from t3tui.headless.postmortem import feed_frames, load_frames_at
    from t3tui.model import DetectorConfig, Supervisor
    from t3tui.proof.feed import apply_records
    from t3tui.proof.records import RecordReader
    from t3tui.tui.sources.frames import FrameSource

    found, at, path, _layout, _skipped = load_frames_at(args)
    probe = Supervisor(config=DetectorConfig())
    feed_frames(probe, found)
    asyncio.run(apply_records(probe, RecordReader(homes_from(args), until=at, final=True)))
    label = f"T3 state {path} as of {at:%Y-%m-%d %H:%M:%S} UTC (read-only)"
    source = FrameSource(found, label=label)
    for thread_id in probe.native_threads():
        source.supervisor.set_provider_record(thread_id, probe.provider_record(thread_id))
        source.supervisor.set_protocol_log(thread_id, probe.protocol_log(thread_id))
    frozen = at if getattr(args, "at", None) is not None else None
    return source, (lambda: frozen) if frozen is not None else None


# The demo without --scenario: two machines, so the tree shows one node per environment.
DEMO_ENVIRONMENTS = (("laptop", "demo"), ("devbox", "parallel-probe"))


def _live_source(args: argparse.Namespace, url_given: bool, backends: list[Any],
                 demo_dirs: list[str]) -> Any:
    """The source for the given server(s), or the embedded demo (its backends are appended
    to `backends`, for the caller to stop, and their data dirs to `demo_dirs`, to remove);
    None when a demo backend did not start."""
    from t3tui.client.environments import resolve_environments
    from t3tui.tui.sources.source import LiveSource

    env_flags = getattr(args, "envs", None)
    if env_flags and url_given and args.url:
        raise TargetError("give either --url or --env, not both")
    environments = resolve_environments(env_flags, getattr(args, "config", None),
                                        use_config_alone=not url_given)
    if environments:
        from t3tui.tui.sources.environments import EnvSource, MultiSource

        return MultiSource([EnvSource(e.name, LiveSource(e.target, proof=homes_from(args)))
                            for e in environments])
    if url_given:
        target = resolve_target(args.url, args.token, token_file=getattr(args, "token_file", None))
        return LiveSource(target, proof=homes_from(args))
    if why := no_terminal():  # before starting demo backends that would not be shown
        raise TargetError(why)
    scenario = getattr(args, "scenario", None)
    if scenario:
        backend, target = _start_demo(scenario, demo_dirs)
        if backend is None:
            return None
        backends.append(backend)
        return LiveSource(target, label=f"demo {target.base_url}", backend_exit=backend.poll,
                          proof=_demo_homes(args, backend))
    from t3tui.tui.sources.environments import EnvSource, MultiSource

    # both start at once: each start waits for its server to listen
    with ThreadPoolExecutor(len(DEMO_ENVIRONMENTS)) as pool:
        started = list(pool.map(lambda pair: _start_demo(pair[1], demo_dirs, pair[0]),
                                DEMO_ENVIRONMENTS))
    backends.extend(b for b, _ in started if b is not None)
    if any(b is None for b, _ in started):
        return None
    envs = [EnvSource(name, LiveSource(target, backend_exit=backend.poll,
                                       proof=_demo_homes(args, backend)))
            for (name, _), (backend, target) in zip(DEMO_ENVIRONMENTS, started, strict=True)]
    return MultiSource(envs)


def _demo_homes(args: argparse.Namespace, backend: Any) -> ProofHomes:
    """The demo's agents write their session records in its data dir: read those."""
    if not getattr(args, "provider_records", True):
        return OFF
    return ProofHomes(Path(backend.data_dir) / "codex-home", Path(backend.data_dir) / "claude-home")


def _start_demo(scenario: str, demo_dirs: list[str], name: str = "") -> tuple[Any, Target]:
    from t3tui.backend.testing import BackendProcess, BackendStartError

    what = f"{name}: {scenario}" if name else scenario
    print(f"t3tui: starting the demo backend ({what})…", file=sys.stderr, flush=True)
    data_dir = tempfile.mkdtemp(prefix="t3tui-demo-")
    demo_dirs.append(data_dir)
    # the child deletes its data dir when it stops, also when this process is killed outright
    backend = BackendProcess(scenario=scenario, data_dir=data_dir,
                             extra_args=["--remove-data-dir"])
    try:
        backend.start()
    except (BackendStartError, OSError) as exc:
        backend.stop()
        _error(f"the demo backend did not start: {exc}")
        return None, Target("", Secret(""))
    return backend, Target(backend.url, Secret(backend.token))
