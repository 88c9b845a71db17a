"""Child process of the memory benchmark: `python -m benchmarks.memory_probe SNAPSHOT.json`.

Prints one JSON line: bytes of RSS added by the model holding the snapshot's threads
(`model`), and by the model plus one retained view (`model_view`), over an empty model; then
what holding the watched threads' streams adds (`watched_bytes` for `watched` threads).
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tracemalloc
from datetime import datetime
from pathlib import Path

from t3tui.model import Supervisor


def rss() -> int:
    """Resident set size in bytes (Linux `/proc/self/statm`)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def data_threads(path: str) -> dict:
    return json.loads(Path(path).read_text()).get("threads", {})


def main(path: str) -> int:
    sup = Supervisor()
    empty = {"kind": "snapshot", "snapshot": {"schemaVersion": 1, "snapshotSequence": 1,
                                              "projects": [], "threads": [], "archivedThreads": []}}
    sup.apply_shell(empty)
    now = datetime.fromisoformat("2026-10-04T12:00:00+00:00")
    sup.view(now)
    gc.collect()
    base = rss()
    data = json.loads(Path(path).read_text())
    now = datetime.fromisoformat(data["now"])
    sup.apply_shell(data["shell"])
    sup.apply_shell({"kind": "synchronized"})
    sup.take_dirty()
    del data
    gc.collect()
    model = rss() - base
    view = sup.view(now)
    gc.collect()
    both = rss() - base
    # the watched threads' streams (their snapshots), as the client holds them, and their
    # rows derived again: what tracemalloc sees retained (RSS would also count the arenas a
    # second full view leaves behind)
    threads = data_threads(path)
    sup.changed_rows(now)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for thread_id, item in threads.items():
        sup.apply_thread(thread_id, item)
        sup.apply_thread(thread_id, {"kind": "synchronized"})
    sup.changed_rows(now)
    gc.collect()
    watched = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    print(json.dumps({"model": model, "model_view": both, "rows": len(view.rows),
                      "watched": len(threads), "watched_bytes": watched}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
