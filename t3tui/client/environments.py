"""Several T3 environments: which servers, by name, and each one's token.

`--env NAME=URL` (repeatable) names a server; `--env NAME` picks one from the config file's
`[environments.NAME]` table (`url`, `token_command`). Without `--env` (and without `--url`),
every environment of the config file is used. Each token comes from `T3TUI_TOKEN_<NAME>`
(upper-cased, `-` as `_`), else from running the environment's `token_command`, whose output
is the token, so secrets stay in the user's keychain or `pass`. Every problem is a
`TargetError` whose one line names the environment; a token never appears in it.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from t3tui.client.secret import Secret, Target, TargetError, normalize_url

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
TOKEN_COMMAND_TIMEOUT_S = 30.0
CONFIG_ENV = "T3TUI_CONFIG"


@dataclass(frozen=True)
class Environment:
    """One named server."""

    name: str
    target: Target


@dataclass(frozen=True)
class EnvironmentSpec:
    """An environment as configured, before its token is fetched."""

    name: str
    url: str | None = None
    token_command: str | list[str] | None = None


def token_variable(name: str) -> str:
    """`devbox` -> `T3TUI_TOKEN_DEVBOX`, `ci-runner` -> `T3TUI_TOKEN_CI_RUNNER`."""
    return "T3TUI_TOKEN_" + name.upper().replace("-", "_")


def check_name(name: str, where: str) -> str:
    if not NAME_RE.match(name):
        raise TargetError(
            f"{where}: environment name {name!r} must be letters, digits, '-' or '_' "
            "(at most 32, starting with a letter or digit)"
        )
    return name


def parse_env_flag(text: str) -> tuple[str, str | None]:
    """`NAME=URL` -> (NAME, URL); `NAME` -> (NAME, None): the URL comes from the config."""
    name, sep, url = text.partition("=")
    name = check_name(name.strip(), f"--env {text!r}")
    if sep and not url.strip():
        raise TargetError(f"--env {name}: no URL after '=' (expected --env {name}=http://HOST:PORT)")
    return name, (url.strip() or None)


def config_path(explicit: str | None, env: Mapping[str, str]) -> tuple[Path, bool]:
    """The config file and whether it was asked for (a missing default file is fine)."""
    if explicit:
        return Path(explicit).expanduser(), True
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser(), True
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "t3tui" / "config.toml", False


def read_config_environments(path: Path, required: bool) -> dict[str, EnvironmentSpec]:
    """The `[environments.NAME]` tables of the config file, in file order."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if required:
            raise TargetError(f"cannot read config {path}: no such file") from None
        return {}
    except OSError as exc:
        raise TargetError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TargetError(f"config {path} is not valid TOML: {exc}") from None
    table = doc.get("environments", {})
    if not isinstance(table, dict):
        raise TargetError(f"{path}: [environments] must hold tables like [environments.laptop]")
    specs: dict[str, EnvironmentSpec] = {}
    for name, entry in table.items():
        where = f"{path} [environments.{name}]"
        check_name(name, where)
        if not isinstance(entry, dict):
            raise TargetError(f"{where} must be a table with url and token_command")
        unknown = set(entry) - {"url", "token_command"}
        if unknown:
            raise TargetError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                              "(known: token_command, url)")
        url, command = entry.get("url"), entry.get("token_command")
        if url is not None and not isinstance(url, str):
            raise TargetError(f"{where}: url must be a string")
        if command is not None and not (
            isinstance(command, str)
            or (isinstance(command, list) and command and all(isinstance(a, str) for a in command))
        ):
            raise TargetError(f"{where}: token_command must be a string or a list of strings")
        specs[name] = EnvironmentSpec(name, url, command)
    return specs


def run_token_command(name: str, command: str | list[str],
                      timeout: float = TOKEN_COMMAND_TIMEOUT_S) -> Secret:
    """Run the command (a string through `sh -c`, a list as argv); its stdout is the token."""
    argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
    prefix = f"environment {name}: token_command"
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              check=False)
    except FileNotFoundError:
        raise TargetError(f"{prefix} cannot run: {argv[0]!r} not found") from None
    except subprocess.TimeoutExpired:
        raise TargetError(f"{prefix} gave no token within {timeout:g}s") from None
    except OSError as exc:
        raise TargetError(f"{prefix} cannot run: {exc.strerror or exc}") from None
    if done.returncode != 0:
        # stderr is the helper's own message ("pass: not in the password store"); its first
        # line, made printable. stdout is never shown: it may hold a partial secret.
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        said = "".join(c if c.isprintable() else " " for c in lines[0])[:160] if lines else ""
        raise TargetError(f"{prefix} failed (exit {done.returncode})" + (f": {said}" if said else ""))
    token = done.stdout.decode("utf-8", "replace").strip()
    if not token:
        raise TargetError(f"{prefix} printed nothing (expected the token on stdout)")
    return Secret(token)


def _target(spec: EnvironmentSpec, env: Mapping[str, str]) -> Environment:
    name = spec.name
    if not spec.url:
        raise TargetError(f"environment {name}: no URL (--env {name}=URL, or url in "
                          f"[environments.{name}])")
    try:
        url = normalize_url(spec.url)
    except TargetError as exc:
        raise TargetError(f"environment {name}: {exc}") from None
    raw = (env.get(token_variable(name)) or "").strip()
    if raw:
        token = Secret(raw)
    elif spec.token_command is not None:
        token = run_token_command(name, spec.token_command)
    else:
        raise TargetError(f"environment {name}: no token (set {token_variable(name)}, or "
                          f"token_command in [environments.{name}])")
    if not token.reveal().isascii() or not token.reveal().isprintable():
        raise TargetError(f"environment {name}: the token has characters an HTTP header "
                          "cannot carry")
    return Environment(name, Target(base_url=url, token=token))


def resolve_environments(flags: Sequence[str] | None, config: str | None = None,
                         env: Mapping[str, str] | None = None, *,
                         use_config_alone: bool = True) -> list[Environment]:
    """The environments to supervise (empty: none were asked for). `flags`: the `--env`
    values; `use_config_alone`: without flags, take every configured environment."""
    values: Mapping[str, str] = os.environ if env is None else env
    path, required = config_path(config, values)
    configured: dict[str, EnvironmentSpec] | None = None
    if flags or use_config_alone or required:
        configured = read_config_environments(path, required)
    specs: list[EnvironmentSpec] = []
    if flags:
        for text in flags:
            name, url = parse_env_flag(text)
            if any(s.name == name for s in specs):
                raise TargetError(f"--env {name} is given twice")
            known = (configured or {}).get(name)
            if url is None and known is None:
                raise TargetError(f"--env {name}: no URL given and no [environments.{name}] in "
                                  f"{path}")
            specs.append(EnvironmentSpec(name, url or (known.url if known else None),
                                         known.token_command if known else None))
    elif use_config_alone and configured:
        specs = list(configured.values())
    return [_target(spec, values) for spec in specs]


def split_qualified(text: str, names: Sequence[str]) -> tuple[str | None, str]:
    """`devbox:thread-1` -> ("devbox", "thread-1") when devbox is one of `names`; anything
    else (a bare id, or an id that itself holds ':') -> (None, text)."""
    name, sep, rest = text.partition(":")
    if sep and name in names:
        return name, rest
    return None, text

