"""Two environments in one app (`t3tui --env laptop=URL --env devbox=URL`), end to end: two
reference backends on 127.0.0.1:0 over real websockets with real agent processes, running
the same scenario (so the same thread ids), one of them killed and restarted on its port."""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from textual.widgets.tree import TreeNode

from t3tui import actions
from t3tui.backend.auth import generate_token
from t3tui.backend.server import BackendOptions, RunningBackend, open_backend
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.state import Live, Reconnecting
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.environments import EnvSource, MultiSource
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.env_tree import EnvThreadTree
from t3tui.tui.widgets.panes import Banner
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e

SIZE = (160, 50)
PARENT = "thread-parent"
CHILD_TITLE = "Same-session child"


def options(data_dir: Path) -> BackendOptions:
    data_dir.mkdir()
    return BackendOptions(data_dir=data_dir, token=generate_token(), port=0,
                          scenario="settle-unsubscribe")


def env(name: str, backend: RunningBackend) -> EnvSource:
    source = LiveSource(Target(backend.url, Secret(backend.token)), backoff=Backoff.fast(),
                        ping_interval=0.5)
    return EnvSource(name, source)


def subtree(node: TreeNode[str]) -> list[str]:
    found: list[str] = []
    stack = list(node.children)
    while stack:
        current = stack.pop()
        if current.data is not None:
            found.append(current.data)
        stack.extend(current.children)
    return found


def rows_of(app: SupervisorApp, name: str) -> list[str]:
    assert app.view is not None
    return [r.id for r in app.view.rows if r.id.startswith(f"{name}:")]


def synced(app: SupervisorApp, name: str, count: int) -> bool:
    return app.view is not None and len(rows_of(app, name)) == count and all(
        "stale" not in r.overlays for r in app.view.rows if r.id.startswith(f"{name}:"))


def settled_on(backend: RunningBackend) -> bool:
    thread = backend.engine.projection(PARENT).thread
    assert thread is not None
    return thread.settled_at is not None or thread.settled_override is not None


def label(app: SupervisorApp, name: str) -> str:
    return app.query_one(EnvThreadTree).env_nodes[name].label.plain


async def test_one_environment_killed_and_restarted(tmp_path: Path) -> None:
    laptop_options, devbox_options = options(tmp_path / "laptop"), options(tmp_path / "devbox")
    async with contextlib.AsyncExitStack() as outer:
        laptop = await outer.enter_async_context(open_backend(laptop_options))
        devbox_stack = contextlib.AsyncExitStack()
        devbox = await devbox_stack.enter_async_context(open_backend(devbox_options))
        port = devbox.port
        source = MultiSource([env("laptop", laptop), env("devbox", devbox)])
        app = SupervisorApp(source, config=TuiConfig(bell=False, confirm_timeout_s=15))
        try:
            async with app.run_test(size=SIZE) as pilot:
                tree = app.query_one(EnvThreadTree)
                await until(lambda: synced(app, "laptop", 2) and synced(app, "devbox", 2),
                            what="both environments synchronized")
                # the same thread ids on both servers, each under its own environment node
                assert f"laptop:{PARENT}" in tree.nodes and f"devbox:{PARENT}" in tree.nodes
                assert sorted(subtree(tree.env_nodes["devbox"])) == sorted(rows_of(app, "devbox"))
                await until(lambda: "● live" in label(app, "devbox"), what="devbox live")
                assert "● live" in label(app, "laptop") and "1 done" in label(app, "laptop")
                before = sorted(rows_of(app, "devbox"))

                await devbox_stack.aclose()  # devbox goes away under the app
                await until(lambda: isinstance(source.environments[1].state, Reconnecting),
                            what="devbox reconnecting")
                await until(lambda: "stale since" in label(app, "devbox"),
                            what="devbox node says stale")
                assert isinstance(source.environments[0].state, Live)
                assert isinstance(app.conn, Live)  # the app as a whole is still live
                banner = str(app.query_one(Banner).render())
                assert "devbox" in banner and "laptop" not in banner
                assert not tree.has_class("-stale")  # only devbox's rows are dimmed
                assert tree._stale_envs == {"devbox"}
                assert sorted(rows_of(app, "devbox")) == before  # still shown, stale

                # laptop's rows stay live: a message to its thread is routed there and seen
                seen: list[tuple[str, str]] = []
                ok = (await actions.send_message(
                    source, f"laptop:{PARENT}", "Reply exactly PONG",
                    report=lambda phase, text: seen.append((phase, text)),
                    clock=app.clock, timeout=15)).ok
                assert ok, seen
                await until(lambda: "PONG" in (app.view.row(f"laptop:{PARENT}").latest_message
                                               or ""), what="laptop's reply on screen")
                # an action on devbox's rows is not offered while it is down
                assert tree.select_thread(f"devbox:{PARENT}")
                await pilot.pause()
                assert app.why_not("checkin") == "not connected to the server"
                assert tree.select_thread(f"laptop:{PARENT}")
                await pilot.pause()
                assert app.why_not("checkin") is None

                restarted = dataclasses.replace(devbox_options, port=port, scenario=None)
                async with open_backend(restarted):
                    await until(lambda: isinstance(source.environments[1].state, Live),
                                timeout=20, what="devbox live again")
                    await until(lambda: "● live" in label(app, "devbox"), what="devbox node live")
                    await until(lambda: synced(app, "devbox", 2), what="devbox resynced")
                    # resumed without duplicates: the same rows, each once, in tree and view
                    assert sorted(rows_of(app, "devbox")) == before
                    ids = [r.id for r in app.view.rows]
                    assert len(ids) == len(set(ids))
                    assert sorted(subtree(tree.env_nodes["devbox"])) == before
                    await until(lambda: app.query_one(Banner).has_class("-hidden"),
                                what="banner gone")
                    assert tree._stale_envs == set()
                    assert tree.select_thread(f"devbox:{PARENT}")
                    await pilot.pause()
                    assert app.why_not("checkin") is None
        finally:
            await devbox_stack.aclose()


async def test_actions_go_to_the_threads_own_environment(tmp_path: Path) -> None:
    async with contextlib.AsyncExitStack() as stack:
        laptop = await stack.enter_async_context(open_backend(options(tmp_path / "laptop")))
        devbox = await stack.enter_async_context(open_backend(options(tmp_path / "devbox")))
        source = MultiSource([env("laptop", laptop), env("devbox", devbox)])
        app = SupervisorApp(source, config=TuiConfig(bell=False, confirm_timeout_s=15))
        async with app.run_test(size=SIZE):
            await until(lambda: synced(app, "laptop", 2) and synced(app, "devbox", 2),
                        what="both environments synchronized")
            reports: list[Any] = []
            ok = (await actions.settle(source, f"devbox:{PARENT}", clock=app.clock, timeout=15,
                                    report=lambda *a: reports.append(a))).ok
            assert ok, reports
            # settled on devbox's server only
            assert settled_on(devbox) and not settled_on(laptop)
            await until(lambda: app.view.row(f"devbox:{PARENT}").settled, what="devbox settled")
            assert not app.view.row(f"laptop:{PARENT}").settled


async def test_an_environment_that_cannot_be_reached_blocks_nothing(tmp_path: Path) -> None:
    async with open_backend(options(tmp_path / "laptop")) as laptop:
        # nothing listens on port 9 of loopback
        dead = EnvSource("devbox", LiveSource(Target("http://127.0.0.1:9", Secret("x" * 20)),
                                              backoff=Backoff.fast()))
        source = MultiSource([env("laptop", laptop), dead])
        app = SupervisorApp(source, config=TuiConfig(bell=False))
        async with app.run_test(size=SIZE):
            await until(lambda: synced(app, "laptop", 2), what="laptop synchronized")
            await until(lambda: "cannot connect to devbox" in str(app.query_one(Banner).render()),
                        what="banner names devbox")
            assert "● live" in label(app, "laptop")
            assert "○ reconnecting" in label(app, "devbox")
            assert isinstance(app.conn, Live)


def test_a_failing_token_command_stops_the_app_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from t3tui.cli import main

    cfg = tmp_path / "config.toml"
    cfg.write_text('[environments.devbox]\nurl = "http://127.0.0.1:9"\n'
                   'token_command = "echo \'pass: devbox is not in the password store\' >&2; '
                   'exit 1"\n')
    assert main(["--config", str(cfg), "--env", "laptop=127.0.0.1:9", "--env", "devbox"]) == 2
    err = capsys.readouterr().err
    assert err == "t3tui: environment laptop: no token (set T3TUI_TOKEN_LAPTOP, or " \
                  "token_command in [environments.laptop])\n"
    assert main(["--config", str(cfg)]) == 2  # every configured environment, without --env
    assert capsys.readouterr().err == (
        "t3tui: environment devbox: token_command failed (exit 1): pass: devbox is not in the "
        "password store\n")


async def test_an_environment_node_shows_its_own_summary() -> None:
    from t3tui.tui.screenshots import environments_app, settled
    from t3tui.tui.widgets.panes import DetailPane

    app = environments_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = app.query_one(EnvThreadTree)
        tree.move_cursor(tree.env_nodes["devbox"])
        await pilot.pause()
        assert tree.selected_environment == "devbox" and app.current_thread_id() is None
        detail = str(app.query_one(DetailPane).render())
        assert detail.startswith("Environment devbox\nhttp://devbox.lan:3773")
        assert "reconnecting (attempt 4)" in detail
        assert f"\n{len(rows_of(app, 'devbox'))} threads: " in detail
        assert app.why_not("settle") == "no thread selected"
        banner = str(app.query_one(Banner).render())
        assert banner.startswith("⚠ stale — reconnecting to devbox (http://devbox.lan:3773)")
        assert "devbox's rows are not live" in banner and "laptop" not in banner
        await pilot.press("enter")  # folds the environment, opens nothing
        await pilot.pause()
        assert not tree.env_nodes["devbox"].is_expanded and app.screen is app.main_screen
        assert tree.selected_environment == "devbox"
        await pilot.press("enter")
        await pilot.pause()
        assert tree.env_nodes["devbox"].is_expanded


def test_hold_rows_keeps_a_down_environments_last_live_rows() -> None:
    from dataclasses import replace

    from t3tui.model.environments import Combined
    from t3tui.tui.view.env_render import hold_rows
    from tests.model.replay import now, supervisor

    t = now(10_000)
    before = Combined([("laptop", supervisor("seed000_serialized")),
                       ("devbox", supervisor("seed000_serialized"))]).view(t)
    # meanwhile every devbox row and one laptop row changed state
    after_rows = tuple(replace(r, state="stuck") if r.id.startswith("devbox:") or r is
                       before.rows[0] else r for r in before.rows)
    after = replace(before, rows=after_rows, by_id={r.id: r for r in after_rows})
    held = hold_rows(before, after, {"devbox"})
    assert {r.id for r in held.rows} == {r.id for r in before.rows}
    assert all(held.row(r.id) == r for r in before.rows if r.id.startswith("devbox:"))
    assert held.row(before.rows[0].id).state == "stuck"  # laptop's change is the baseline now
