"""Real subprocesses: streamed output, exit codes, and whole-tree kills."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from t3tui.backend.provider.process import ProcessRegistry, kill_tree, run_command
from t3tui.backend.testing import pid_alive, wait_until


async def test_output_is_streamed_and_the_exit_code_returned(tmp_path: Path) -> None:
    chunks: list[str] = []
    registry = ProcessRegistry()
    code = await run_command("echo one; echo two >&2; exit 3", cwd=tmp_path,
                             on_output=chunks.append, registry=registry)
    assert code == 3
    assert "one" in "".join(chunks) and "two" in "".join(chunks)
    assert registry.pids == []


async def test_cancelling_kills_the_whole_process_group(tmp_path: Path) -> None:
    chunks: list[str] = []
    registry = ProcessRegistry()
    # a background grandchild and a foreground sleep: both must die with the group
    command = "sleep 30 & echo bg=$!; echo fg=$$; exec sleep 30"
    task = asyncio.create_task(run_command(command, cwd=tmp_path, on_output=chunks.append,
                                           registry=registry))
    await wait_until(lambda: "fg=" in "".join(chunks), timeout=5, what="pids printed")
    text = "".join(chunks)
    pids = [int(part.split("=")[1].split()[0]) for part in text.split() if "=" in part]
    assert len(pids) == 2 and all(pid_alive(p) for p in pids)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await wait_until(lambda: not any(pid_alive(p) for p in pids), timeout=5, what="group dead")
    assert registry.pids == []


async def test_kill_all_stops_every_live_group(tmp_path: Path) -> None:
    registry = ProcessRegistry()
    started: list[int] = []
    tasks = [asyncio.create_task(run_command("exec sleep 30", cwd=tmp_path, on_output=print,
                                             registry=registry, on_start=started.append))
             for _ in range(2)]
    await wait_until(lambda: len(registry.pids) == 2, timeout=5, what="two processes")
    await registry.kill_all(grace=1.0)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, int) and r != 0 for r in results)
    assert not any(pid_alive(p) for p in started)


async def test_agents_are_started_without_code_between_fork_and_exec(tmp_path: Path,
                                                                     monkeypatch) -> None:
    # The backend has threads (the store's writer): Python code run in a forked child before
    # exec (`preexec_fn`) may deadlock there (subprocess docs). The tie to the backend's life
    # must not need it.
    real = asyncio.create_subprocess_shell
    seen: list[dict] = []

    async def spawn(*args, **kwargs):
        seen.append(kwargs)
        return await real(*args, **kwargs)

    monkeypatch.setattr(asyncio, "create_subprocess_shell", spawn)
    chunks: list[str] = []
    code = await run_command("echo tied", cwd=tmp_path, on_output=chunks.append,
                             registry=ProcessRegistry())
    assert code == 0 and "tied" in "".join(chunks)
    assert [k.get("preexec_fn") for k in seen] == [None]


async def test_an_agent_group_ends_when_its_backend_goes(tmp_path: Path) -> None:
    # The backend's death, as its agents see it: the lifeline's write end closes (the kernel
    # closes it when the backend dies, even of SIGKILL). Here a stand-in backend holds it.
    chunks: list[str] = []
    registry = ProcessRegistry()
    command = "sleep 30 & echo bg=$!; echo fg=$$; wait"
    read_end, write_end = os.pipe()
    try:
        task = asyncio.create_task(run_command(command, cwd=tmp_path, on_output=chunks.append,
                                               registry=registry, lifeline=read_end))
        await wait_until(lambda: "fg=" in "".join(chunks), timeout=5, what="pids printed")
        pids = [int(part.split("=")[1]) for part in "".join(chunks).split() if "=" in part]
        assert len(pids) == 2 and all(pid_alive(p) for p in pids)
        os.close(write_end)
        write_end = -1
        await wait_until(lambda: not any(pid_alive(p) for p in pids), timeout=5,
                         what="the group ends with its backend's lifeline")
        assert await asyncio.wait_for(task, 5) != 0
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
        await registry.kill_all(grace=1.0)


async def test_a_cancelled_kill_tree_still_kills_within_its_bound_then_is_cancelled(
        tmp_path: Path) -> None:
    # kill_tree finishes a kill its caller gave up on (an agent must not outlive an interrupt),
    # but within a bound (TERM, grace, KILL, grace), however often it is cancelled meanwhile;
    # and then the caller's cancellation goes on: a shutdown that cancels its tasks must not
    # see one carry on as if nothing had happened.
    grace = 1.0
    proc = await asyncio.create_subprocess_shell(
        "trap '' TERM; echo ready; while :; do sleep 0.1; done", cwd=str(tmp_path),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        start_new_session=True)
    try:
        assert proc.stdout is not None
        assert await asyncio.wait_for(proc.stdout.readline(), 10) == b"ready\n"
        task = asyncio.create_task(kill_tree(proc, grace))
        await asyncio.sleep(0)  # the SIGTERM is sent, which the leader ignores
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * grace + 5  # the bound, and room for a loaded machine
        while not task.done() and loop.time() < deadline:
            task.cancel()  # again and again, as a shutdown that gave up waiting would
            await asyncio.wait({task}, timeout=0.05)
        assert task.done(), "kill_tree outlived its bound"
        assert proc.returncode == -signal.SIGKILL
        assert task.cancelled()
    finally:
        if proc.returncode is None:
            os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
