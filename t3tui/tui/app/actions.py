"""The app's actions: gating (`check_action`), confirmations, and launching action flows.

A mixin of `SupervisorApp`, kept apart so the app module stays about rendering. Each action
that talks to the server runs its action (`t3tui.actions`) in its own exclusive worker, grouped by
action and thread, and hears back only through `ActionUpdate` messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, get_args

from rich.text import Text
from textual.widgets import Input

from t3tui import actions
from t3tui.actions import NEEDS_ROW, interrupt_choices, unavailable
from t3tui.client.errors import describe
from t3tui.client.state import Live, Stale, Syncing
from t3tui.model.environments import unqualify
from t3tui.model.forwarding import forward_refusal
from t3tui.model.wiretext import display_text, is_display_safe
from t3tui.protocol.enums import ApprovalDecision
from t3tui.tui.app.keys import BY_ID
from t3tui.tui.app.messages import ActionStatus, ActionUpdate, SettleChecked, action_name
from t3tui.tui.app.refusals import FORWARD_AGAIN, session_refusal
from t3tui.tui.screens.modals import Choice, ConfirmScreen, Field, HelpScreen, PromptScreen
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.view.helptext import help_text
from t3tui.tui.view.timeline import timeline_parent

if TYPE_CHECKING:
    from t3tui.tui.app.app import SupervisorApp

    _Base = SupervisorApp
else:
    _Base = object

Report = Callable[[str, str], None]
NARROW_HELP = 96  # below this width each key's help goes on its own line
MAIN_ONLY = frozenset({"filter", "problems", "timeline", "clear_filter"})
DEFAULT_DECISIONS = (("accept", "Accept"), ("acceptForSession", "Accept for session"),
                     ("decline", "Decline"))
# A newer server may offer a decision the V2 contract does not list; t3tui cannot send it.
SENDABLE_DECISIONS = frozenset(get_args(ApprovalDecision))


def _quoted(title: str) -> str:
    return f"“{title}”"


class ActionsMixin(_Base):
    """Action methods of `SupervisorApp` (see the module docstring)."""

    # -- gating --

    def why_not(self, action: str) -> str | None:
        """Why `action` does not apply now, or None when it does."""
        if action == "open" and isinstance(self.screen, TranscriptScreen):
            return "already open"
        said = session_refusal(action, replaying=self.replaying, can_report=self._can_report())
        if said or action == "clear_filter":
            return said or (None if self.check_action(action, ()) else "no filter to clear")
        row = self.current_row()
        if action == "report" and row is None:
            return "no thread selected"
        conn = self.conn_of(row.id if row is not None else None)
        connected = isinstance(conn, Live | Stale | Syncing)
        busy = frozenset(
            kind for kind, s in self.statuses.get(row.id, {}).items() if not s.done
        ) if row is not None else frozenset()
        reason = unavailable(action, row, connected=connected, busy_actions=busy)
        if action == "forward" and reason and row is not None:
            reason = forward_refusal(row, again=FORWARD_AGAIN) or reason  # no CLI flag here
        return reason

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides a key that makes no sense on this screen; None dims one that does not
        # apply to the selected thread right now.
        if action == "open" and isinstance(self.screen, TranscriptScreen):
            return False
        if self.typing_gate(action) is False:
            return False
        gate = self.triage_gate(action)
        if gate is False:
            return False
        if action == "report":
            return None if self.current_row() is None else True
        if gate is True:
            return True
        if action in NEEDS_ROW:
            return None if self.why_not(action) else True
        if action in MAIN_ONLY:
            if self.screen is not self.main_screen:
                return False
            if action == "clear_filter":  # escape closes the line, even an empty one
                shown = not self.main_screen.query_one("#filter").has_class("-hidden")
                return True if self.row_filter.active or shown else None
        if action == "help" and isinstance(self.screen, HelpScreen):
            return None
        return True

    def refused(self, action: str, reason: str) -> None:
        spec = BY_ID.get(action)
        self.notify(reason, title=spec.label if spec else action, severity="warning",
                    markup=False)

    def run_from_palette(self, action: str) -> None:
        reason = self.why_not(action) if not self.check_action(action, ()) else None
        if reason:
            self.refused(action, reason)
            return
        getattr(self, f"action_{action}")()

    # -- flows in workers --

    def start_flow(self, thread_id: str, kind: str, run: Callable[[Report], Awaitable[Any]],
                   *, deadline_s: float | None = None) -> None:
        started = self.clock()
        deadline = started + timedelta(seconds=deadline_s) if deadline_s else None

        def report(phase: str, text: str) -> None:
            self.post_message(ActionUpdate(
                ActionStatus(thread_id, kind, phase, text, started, deadline)))

        async def job() -> None:
            try:
                await run(report)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a flow never takes the app down
                report("unknown", f"outcome unknown: {describe(exc)}")

        # Record "pending" now, so the key is gated before the worker even starts.
        self.statuses.setdefault(thread_id, {})[kind] = ActionStatus(
            thread_id, kind, "pending", f"{action_name(kind)}…", started, deadline)
        self.run_worker(job(), name=f"{kind} {thread_id}", group=f"{kind}:{thread_id}",
                        exclusive=True, exit_on_error=False)
        self._patch([thread_id])

    def _timeout(self) -> float:
        return self.config.confirm_timeout_s

    # -- open --

    def action_open(self) -> None:
        thread_id = self.current_thread_id()
        if thread_id is None or isinstance(self.screen, TranscriptScreen):
            return
        opened = self.source.open_thread(thread_id)

        def closed(_result: object) -> None:
            if opened:
                self.source.close_thread(thread_id)
            self._patch([thread_id])

        self.push_screen(TranscriptScreen(thread_id), callback=closed)
        self.call_after_refresh(self._patch, [thread_id])

    # -- settle --

    def action_settle(self) -> None:
        row, view = self.current_row(), self.view
        if row is None or view is None:
            return
        thread_id = row.id

        async def check(report: Report) -> None:
            report("pending", "checking which children share its provider session…")
            found = await actions.check_settle(self.source, view, thread_id)
            self.post_message(SettleChecked(thread_id, found.risks,
                                            [r.id for r in found.unsettled]))

        self.start_flow(thread_id, "settle", check)

    def on_settle_checked(self, message: SettleChecked) -> None:
        self.statuses.get(message.thread_id, {}).pop("settle", None)
        view = self.view
        row = view.row(message.thread_id) if view else None
        if row is None or view is None:
            self._patch([message.thread_id])
            return
        title = row.title or row.id
        body = Text("Settling marks the thread done in the inbox and detaches its live "
                    "provider sessions.")
        names = [self._title_of(t) for t in message.unsettled]
        if names:
            body.append("\nUnsettled children stay as they are: ")
            body.append(", ".join(names))
        warning = None
        choices = [Choice("settle", "Settle")]
        if message.risks:
            warning = Text("⚠ Unsettled children share this thread's provider session:\n")
            for risk in message.risks:
                warning.append(f"  • {self._title_of(risk.child_id)}")
                warning.append(f" (session {risk.session_id})\n")
            warning.append("Settling detaches that session: the child's next turn can hang "
                           "with its reply lost (seed 004). Settle the children first.")
            choices = [Choice("children", "Settle children first"),
                       Choice("settle", "Settle anyway", "error")]
        self.push_screen(
            ConfirmScreen(f"Settle {_quoted(title)}?", body, choices, warning=warning),
            callback=lambda choice: self._settle_chosen(row.id, choice, message.unsettled),
        )
        self._patch([message.thread_id])

    def _settle_chosen(self, thread_id: str, choice: str | None, unsettled: list[str]) -> None:
        if choice is None:
            self._patch([thread_id])
            return
        children = unsettled if choice == "children" else []

        def settle_all(report: Report) -> Awaitable[Any]:
            return actions.settle_children_first(
                self.source, thread_id, children, report=report, clock=self.clock,
                timeout=self._timeout(), title_of=self._title_of, new_id=self.new_id)

        self.start_flow(thread_id, "settle", settle_all)

    # -- interrupt --

    def action_interrupt(self) -> None:
        row, view = self.current_row(), self.view
        if row is None or view is None:
            return
        previous = self.statuses.get(row.id, {}).get("interrupt")
        force = row.state == "stuck" or (previous is not None and previous.phase == "failed")
        choices = interrupt_choices(view, row, force=force)
        if not choices:
            return
        body = Text()
        for i, choice in enumerate(choices):
            body.append("\n" if i else "")
            body.append(f"• {choice.label}", style="bold")
            body.append(f"\n  stops run {choice.run_id} of {_quoted(choice.title)}: ")
            body.append(choice.consequence)
        buttons = [Choice(c.key, c.label, "warning" if c.key.startswith("child:") else "error")
                   for c in choices]
        flows_by_kind = {"force": actions.force_stop}
        by_key = {c.key: c for c in choices}

        def chosen(key: str | None) -> None:
            choice = by_key.get(key or "")
            if choice is None:
                return
            self.quiet([choice.thread_id])
            flow = flows_by_kind.get(choice.key.split(":", 1)[0], actions.interrupt)
            self.start_flow(choice.thread_id, "interrupt", lambda report: flow(
                self.source, choice.thread_id, choice.run_id, report=report, clock=self.clock,
                timeout=self._timeout(), new_id=self.new_id))

        self.push_screen(ConfirmScreen(f"Interrupt {_quoted(row.title or row.id)}?", body,
                                       buttons), callback=chosen)

    # -- check-in --

    def action_checkin(self) -> None:
        row = self.current_row()
        if row is None:
            return
        self.checkin_now(row.id)

    def settle_now(self, thread_id: str) -> None:
        """Settle without the confirmation: the demo's own seed 004 step (autopilot.py)."""
        self.start_flow(thread_id, "settle", lambda report: actions.settle(
            self.source, thread_id, report=report, clock=self.clock, timeout=self._timeout(),
            new_id=self.new_id))

    def checkin_now(self, thread_id: str) -> None:
        cfg = self.config
        self.start_flow(thread_id, "checkin", lambda report: actions.checkin(
            self.source, thread_id, report=report, clock=self.clock, text=cfg.checkin_text,
            expect=cfg.checkin_expect, timeout_s=cfg.checkin_timeout_s),
            deadline_s=cfg.checkin_timeout_s)

    # -- answer --

    def action_answer(self) -> None:
        row = self.current_row()
        if row is None or row.pending_request is None:
            return
        request, thread_id = row.pending_request, row.id
        prompt = self.source.transcripts.get(thread_id).prompts.get(request.id)
        title = f"Answer {_quoted(row.title or row.id)}"
        body = Text(f"{request.kind} request {request.id}")
        if prompt is not None and prompt.prompt:
            body.append("\n\n")
            body.append(prompt.prompt)

        def respond(**answer: Any) -> None:
            self.start_flow(thread_id, "answer", lambda report: actions.respond(
                self.source, thread_id, request.id, report=report, clock=self.clock,
                timeout=self._timeout(), new_id=self.new_id, **answer))

        if request.kind == "user_input" or (prompt is not None and prompt.questions):
            questions = prompt.questions if prompt is not None and prompt.questions else ()
            fields = [Field(qid, text or qid) for qid, text in questions] or [
                Field("answer", "Answer")]
            self.push_screen(PromptScreen(title, body, fields, submit="Answer"),
                             callback=lambda values: values and respond(answers=values))
            return
        offered = prompt.options if prompt is not None and prompt.options else ()
        options = [(d, label) for d, label in offered if d in SENDABLE_DECISIONS]
        options = options or list(DEFAULT_DECISIONS)
        choices = [Choice(decision, label, "error" if decision in ("decline", "cancel")
                          else "primary") for decision, label in options]
        self.push_screen(ConfirmScreen(title, body, choices),
                         callback=lambda decision: decision and respond(decision=decision))

    # -- message --

    def action_message(self) -> None:
        row = self.current_row()
        if row is None:
            return
        thread_id = row.id
        busy = row.active_run_id is not None
        body = Text("Sent as you. " + ("It is queued after the active run." if busy
                                       else "It starts a new run."))

        def send(values: dict[str, str] | None) -> None:
            if values:
                text = values["text"]
                self.start_flow(thread_id, "message", lambda report: actions.send_message(
                    self.source, thread_id, text, report=report, clock=self.clock,
                    timeout=self._timeout(), new_id=self.new_id))

        self.push_screen(PromptScreen(f"Message to {_quoted(row.title or row.id)}", body,
                                      [Field("text", "Message")]), callback=send)

    # -- filters, panes, help --

    def action_filter(self) -> None:
        box = self.main_screen.query_one("#filter", Input)
        box.remove_class("-hidden")
        box.cursor_position = len(box.value)
        # Typing mode (keyroute.py): the keys typed right after `/` belong to the filter.
        self.start_typing(box)

    def action_problems(self) -> None:
        flt = self.row_filter
        self.row_filter = type(flt)(flt.words, flt.states, not flt.problems_only)
        self.redraw()

    def action_clear_filter(self) -> None:
        box = self.main_screen.query_one("#filter", Input)
        box.value = ""
        box.add_class("-hidden")
        self.row_filter = type(self.row_filter)()
        self.stop_typing(self.tree)
        self.redraw()

    def action_raw(self) -> None:
        """Raw ids and evidence in the detail and transcript, or names and stories again."""
        self.raw_ids = not self.raw_ids
        self.notify("raw ids and evidence" if self.raw_ids else "names and stories",
                    title="detail", timeout=2, markup=False)
        self._patch(self._selected())

    def action_copy_id(self) -> None:
        """The thread's raw id to the clipboard (OSC 52) and in a toast, to read or select."""
        thread_id = self.current_thread_id()
        if thread_id is None:
            self.notify("no thread selected", title="copy id", severity="warning", markup=False)
            return
        # the id the server knows: an environment's `NAME:` qualifier is ours, not the wire's
        raw_id = unqualify(thread_id)[1] if getattr(self.source, "environments", None) \
            else thread_id
        if not is_display_safe(raw_id, one_line=True):
            # a server picks its ids: pasted into a shell, a newline in one runs what follows
            self.notify(f"{display_text(raw_id, one_line=True)}\n(holds control characters: "
                        "not copied)", title="thread id", severity="warning", markup=False)
            return
        self.copy_to_clipboard(raw_id)
        self.notify(f"{raw_id}\n(copied with OSC 52 where the terminal allows it)",
                    title="thread id", timeout=8, markup=False)

    def action_timeline(self) -> None:
        self.show_timeline(self.main_screen.query_one("#timeline").has_class("-off"))
        self._patch(self._selected())

    def action_help(self) -> None:
        keys = {spec_id: self.config.keys.get(spec_id, spec.key)
                for spec_id, spec in BY_ID.items()}
        from textual.binding import Binding

        content = help_text(keys, lambda key: self.get_key_display(Binding(key, "")),
                            stacked=self.size.width < NARROW_HELP)
        self.push_screen(HelpScreen(content))

    def timeline_parent_id(self) -> str | None:
        view = self.view
        parent = timeline_parent(view, self.current_row()) if view else None
        return parent.id if parent else None
