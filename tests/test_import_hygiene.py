"""The headless layers never import Textual, and the protocol layer imports no network library.

Each check runs in a fresh interpreter so that nothing imported by the test run leaks in.
Modules are found with pkgutil, so new modules are covered as the layers grow.
"""

import json
import subprocess
import sys

import pytest

HEADLESS = ["t3tui.protocol", "t3tui.client", "t3tui.model", "t3tui.backend", "t3tui.headless",
            "t3tui.policy"]

_PROBE = r"""
import importlib, json, pkgutil, sys
failed = {}
for root in ROOTS:
    try:
        package = importlib.import_module(root)
    except Exception as exc:
        failed[root] = repr(exc)
        continue
    for info in pkgutil.walk_packages(package.__path__, root + "."):
        try:
            importlib.import_module(info.name)
        except Exception as exc:
            failed[info.name] = repr(exc)
loaded = sorted(m for m in sys.modules if m.startswith("t3tui"))
print(json.dumps({"failed": failed, "loaded": loaded, "modules": sorted(sys.modules)}))
"""


def _probe(roots: list[str]) -> dict:
    code = f"ROOTS = {roots!r}\n{_PROBE}"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def headless() -> dict:
    return _probe(HEADLESS)


def _top_level(modules: list[str]) -> set[str]:
    return {m.split(".", 1)[0] for m in modules}


def test_headless_layers_do_not_import_textual(headless: dict) -> None:
    assert "textual" not in _top_level(headless["modules"]), "a headless module imported textual"
    assert len(headless["loaded"]) > len(HEADLESS)  # the walk really imported submodules


def test_every_headless_module_imports(headless: dict) -> None:
    assert headless["failed"] == {}


def test_protocol_imports_no_network_library() -> None:
    result = _probe(["t3tui.protocol"])
    assert result["failed"] == {}
    assert not _top_level(result["modules"]) & {"textual", "websockets", "httpx"}
