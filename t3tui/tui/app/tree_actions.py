"""The app's second-wave actions: stop a subtree, forward a result, dispose or acknowledge a
pending delivery. A controller the app holds (`app.tree_actions`) next to `Actions`; every one
asks first, then runs its action (`t3tui.actions`) in a worker through `Actions.start_flow`."""

from __future__ import annotations

from rich.text import Text

from t3tui import actions
from t3tui.model.forwarding import forward_text
from t3tui.tui.app.port import AppPort
from t3tui.tui.screens.modals import Choice, ConfirmScreen


def _quoted(title: str) -> str:
    return f"“{title}”"


class TreeActions:
    """The second-wave action keys (see the module docstring)."""

    def __init__(self, app: AppPort) -> None:
        self.app = app

    def stop_tree(self) -> None:
        row, view = self.app.current_row(), self.app.view
        if row is None or view is None:
            return
        targets = actions.stop_targets(view, row.id)
        if not targets:
            self.app.notify("nothing is running in this subtree", severity="warning", markup=False)
            return
        runs = [t for t in targets if not t.runaway]
        runaways = [t for t in targets if t.runaway]
        body = Text()
        if runs:
            body.append(f"Interrupts {len(runs)} run{'s' if len(runs) != 1 else ''}, deepest "
                        "first, each confirmed from the stream before the next:\n")
            for target in runs:
                body.append(f"\n• {target.title}", style="bold").append(f"  run {target.run_id}")
            body.append("\n\nTheir work is lost; a stopped parent's children that are not "
                        "stopped here would never report to it. A parent here that the "
                        "stopped children's results start again is stopped too, and said so.")
        if runaways:
            body.append("\n\nThen force-stops" if runs else "Force-stops")
            body.append(" each runaway (its run ended, its provider runs on), unless a thread "
                        "that still runs shares its provider session:\n")
            for target in runaways:
                body.append(f"\n• {target.title}", style="bold").append(
                    f"  run {target.run_id} ended interrupted")
            body.append(f"\n  {actions.RUNAWAY_CONSEQUENCE}")

        def chosen(key: str | None) -> None:
            if key != "stop":
                return
            self.app.quiet([t.thread_id for t in targets])
            for target in targets:  # each run it stops is the user's act, for the policies
                self.app.policies.acted_on(target.thread_id, self.app.clock())
            self.app.actions.start_flow(row.id, "stop_tree", lambda report: actions.stop_tree(
                self.app.source, targets, root=row.id, report=report, clock=self.app.clock,
                timeout=self.app.actions.timeout(), new_id=self.app.new_id))

        self.app.push_screen(ConfirmScreen(
            f"Stop {_quoted(row.title or row.id)} and everything under it?", body,
            [Choice("stop", f"Stop {len(targets)}", "error")]), callback=chosen)

    def forward(self) -> None:
        row, view = self.app.current_row(), self.app.view
        if row is None or view is None or row.task is None:
            return
        parent = view.row(row.task.parent_thread_id)
        if parent is None:
            self.app.notify("its parent is not on this server", severity="warning", markup=False)
            return
        text = forward_text(row)
        busy = parent.active_run_id is not None
        body = Text(f"Sent to {_quoted(parent.title or parent.id)} as you"
                    + (" (queued after its active run)" if busy else "")
                    + ", exactly this:\n\n", style="dim")
        body.append(text)

        def chosen(key: str | None) -> None:
            if key != "send":
                return
            self.app.actions.start_flow(parent.id, "message", lambda report: actions.forward(
                self.app.source, row, text=text, report=report, clock=self.app.clock,
                timeout=self.app.actions.timeout(), new_id=self.app.new_id))

        self.app.push_screen(ConfirmScreen(f"Forward {_quoted(row.title or row.id)}'s result?", body,
                                       [Choice("send", "Send")]), callback=chosen)

    def _delivery(self, action: str) -> None:
        row = self.app.current_row()
        if row is None or row.task is None:
            return
        if action == "dispose":
            title = f"Don't wake the parent for {_quoted(row.title or row.id)}?"
            body = Text("Its completion delivery becomes disposed: the parent will not be told "
                        "when it finishes (you can still forward its result).")
        else:
            title = f"Mark {_quoted(row.title or row.id)}'s result as seen?"
            body = Text("Its completion delivery becomes acknowledged: the parent counts as "
                        "told (after you forwarded the result, say). A queued wake for it may "
                        "be cancelled.")
        body.append(f"\n\ntask {row.task.task_id} · delivery {row.task.delivery or 'unknown'}",
                    style="dim")
        label = "Dispose" if action == "dispose" else "Acknowledge"

        def chosen(key: str | None) -> None:
            if key == action:
                self.app.actions.start_flow(row.id, action, lambda report: actions.settle_delivery(
                    self.app.source, row, action, report=report, clock=self.app.clock,
                    timeout=self.app.actions.timeout(), new_id=self.app.new_id))

        self.app.push_screen(ConfirmScreen(title, body, [Choice(action, label, "warning")]),
                         callback=chosen)

    def dispose(self) -> None:
        self._delivery("dispose")

    def acknowledge(self) -> None:
        self._delivery("acknowledge")
