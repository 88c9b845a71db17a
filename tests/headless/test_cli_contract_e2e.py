"""Issue 21, item 8: the headless CLI keeps its documented contract, over real sockets against
the reference backend: exit codes (0 done, 1 refused or not confirmed, 2 error), `--version`,
a wrong URL path that fails at once, a forced stop from the CLI, short ids in what it prints,
and `serve --help` naming every bundled scenario."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

import t3tui
from t3tui.backend.scenarios import available
from t3tui.backend.testing import RunningBackend
from t3tui.cli import main
from tests.headless.cli import cli

pytestmark = pytest.mark.e2e


async def test_version_prints_the_package_version() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "t3tui", "--version",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert (proc.returncode, out.decode(), err.decode()) == (0, f"t3tui {t3tui.__version__}\n", "")


def test_serve_help_names_every_bundled_scenario(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as info:
        main(["serve", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    option = out[out.index("  --scenario NAME|PATH"):out.index("  --scenario-param")]
    words = " ".join(option.split())  # wrapped between words, never inside a name
    names = available()
    assert len(names) >= 8
    missing = [n for n in names if n not in words]
    assert not missing, (missing, option)


async def test_a_wrong_url_path_fails_at_once_with_the_404(backend: RunningBackend) -> None:
    started = time.monotonic()
    result = await cli("status", "--url", backend.url + "/not-t3", f"--token={backend.token}")
    elapsed = time.monotonic() - started
    assert result.code == 2, result
    assert elapsed < 5, elapsed  # the default --connect-timeout is 15 s: no retrying a 404
    assert result.err.startswith(f"t3tui: {backend.url}/not-t3 is not a T3 server")
    assert "HTTP 404" in result.err and len(result.err.splitlines()) == 1
    assert backend.token not in result.err
