"""Every benchmark runs at a tiny size and prints well-formed results (structure, never speed)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common import Report, percentile

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = {
    "ingest": ["threads", "floor items/s", "t3tui items/s", "t3tui/floor"],
    "scaling": ["part", "ratio"],
    "scaling-calls": ["part", "ratio"],
    "memory": ["threads", "KiB/thread", "KiB/watched thread"],
    "tui": ["figure", "median", "p95", "ratio", "n"],
    "first_tree": ["figure", "median", "min", "max", "ratio"],
    "fanout": ["clients", "backend ev/s", "bare ev/s", "backend/bare", "backend/same frames",
               "frames/event"],
    "proof": ["look", "ms", "MB read", "vs re-read"],
    "replay": ["figure", "seconds", "ratio"],
    "soak": ["consumer", "cpu s", "wall s", "cpu share", "RSS end MB", "growth after MB"],
    "soak-rss": ["t s", "watch", "app"],
}


def run_module(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def positive(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    path = tmp_path_factory.mktemp("bench") / "results.json"
    done = run_module("benchmarks.run_all", "--tiny", "--json", str(path))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, json.loads(path.read_text())


def test_every_benchmark_prints_its_table(tiny_run: tuple[str, dict]) -> None:
    out, _ = tiny_run
    assert out.startswith("machine: nproc=")
    for name in EXPECTED:
        assert f"== {name}: " in out, name
    assert "total: " in out
    assert "Traceback" not in out


def test_every_report_has_its_columns_and_rows(tiny_run: tuple[str, dict]) -> None:
    _, data = tiny_run
    assert {"nproc", "cpu", "python"} <= data["machine"].keys()
    reports = {r["name"]: r for r in data["reports"]}
    assert reports.keys() == EXPECTED.keys()
    for name, columns in EXPECTED.items():
        report = reports[name]
        assert set(columns) <= set(report["columns"]), name
        assert report["rows"], name
        for row in report["rows"]:
            assert set(row) == set(report["columns"]), name


def test_the_ratios_are_measured_numbers(tiny_run: tuple[str, dict]) -> None:
    reports = {r["name"]: r for r in tiny_run[1]["reports"]}
    for row in reports["ingest"]["rows"]:
        assert all(positive(row[c]) for c in ("floor items/s", "t3tui items/s", "t3tui/floor"))
    # a world with busy top-level threads, which t3tui subscribes for their activity
    assert any("busy" in str(row["threads"]) for row in reports["ingest"]["rows"])
    for name in ("scaling", "scaling-calls"):
        assert all(positive(row["ratio"]) for row in reports[name]["rows"]), name
    fan = [r for r in reports["fanout"]["rows"] if isinstance(r["clients"], int)]
    assert fan and all(positive(r["backend/bare"]) and positive(r["backend/same frames"])
                       and positive(r["frames/event"]) for r in fan)
    tui = {r["figure"].split(" (")[0].strip(): r for r in reports["tui"]["rows"]}
    assert positive(tui["event -> row on screen"]["median"])
    assert positive(tui["key -> screen"]["median"])
    assert any(k.startswith("first full tree") and positive(r["ratio"]) for k, r in tui.items())
    assert positive(tui["the app's CPU to that paint"]["ratio"])
    assert positive(reports["memory"]["rows"][0]["KiB/thread"])
    assert positive(reports["memory"]["rows"][0]["KiB/watched thread"])
    soaks = {r["consumer"]: r for r in reports["soak"]["rows"]}
    assert soaks.keys() == {"watch", "app"}
    assert all(positive(r["cpu share"]) and positive(r["RSS end MB"]) for r in soaks.values())
    assert all(positive(r["watch"]) and positive(r["app"]) for r in reports["soak-rss"]["rows"])


def test_a_single_benchmark_runs_from_its_own_command_line(tmp_path: Path) -> None:
    path = tmp_path / "scaling.json"
    done = run_module("benchmarks.scaling", "--tiny", "--json", str(path))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "== scaling-calls: " in done.stdout
    names = [r["name"] for r in json.loads(path.read_text())["reports"]]
    assert names == ["scaling", "scaling-calls", "memory"]


def test_the_report_renders_aligned_columns_and_refuses_missing_ones() -> None:
    report = Report("demo", "a table", ["a", "b/c"])
    report.add(a=1, **{"b/c": 0.5})
    report.add(a=12345.0, **{"b/c": math.nan})
    lines = report.render().splitlines()
    assert lines[0] == "== demo: a table =="
    assert len({len(line) for line in lines[1:]}) == 1
    assert lines[3].split() == ["12,345", "n/a"]
    with pytest.raises(ValueError, match="lacks"):
        report.add(a=1)
    assert percentile([1, 2, 3, 4, 5], 50) == 3
    assert percentile([1.0, 2.0], 95) == pytest.approx(1.95)
