"""The app's actions: gating (`check_action`), confirmations, and launching action flows.

A controller the app holds (`app.actions`); the app's `check_action` and `action_*` methods
delegate here. Each action that talks to the server runs its action (`t3tui.actions`) in its own exclusive worker, grouped by
action and thread, and hears back only through `ActionUpdate` messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, get_args

from rich.text import Text

from t3tui import actions
from t3tui.actions import NEEDS_ROW, interrupt_choices, unavailable
from t3tui.client.errors import describe
from t3tui.model.environments import unqualify
from t3tui.model.forwarding import forward_refusal, forwarded_refusal
from t3tui.model.wiretext import display_text, is_display_safe
from t3tui.protocol.enums import ApprovalDecision
from t3tui.tui.app.gates import GateInputs, gate_inputs
from t3tui.tui.app.keys import BY_ID
from t3tui.tui.app.messages import ActionStatus, ActionUpdate, SettleChecked, action_name
from t3tui.tui.app.port import AppPort, Report
from t3tui.tui.app.refusals import FORWARD_AGAIN, session_refusal
from t3tui.tui.screens.modals import Choice, ConfirmScreen, Field, HelpScreen, PromptScreen
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.view.helptext import help_text

NARROW_HELP = 96  # below this width each key's help goes on its own line
MAIN_ONLY = frozenset({"filter", "problems", "timeline", "clear_filter"})
DEFAULT_DECISIONS = (("accept", "Accept"), ("acceptForSession", "Accept for session"),
                     ("decline", "Decline"))
# A newer server may offer a decision the V2 contract does not list; t3tui cannot send it.
SENDABLE_DECISIONS = frozenset(get_args(ApprovalDecision))


def _quoted(title: str) -> str:
    return f"“{title}”"


class Actions:
    """The app's action keys and what gates them (see the module docstring)."""

    def __init__(self, app: AppPort) -> None:
        self.app = app

    # -- gating --

    def why_not(self, action: str, inputs: GateInputs | None = None) -> str | None:
        """Why `action` does not apply now, or None when it does (from `inputs`, or the app's
        as they are now: a gate reads nothing else, see gates.py)."""
        inputs = inputs or gate_inputs(self.app)
        if action == "open" and isinstance(inputs.screen, TranscriptScreen):
            return "already open"
        said = session_refusal(action, replaying=inputs.replaying, can_report=inputs.can_report)
        if said or action == "clear_filter":
            return said or (None if self.check_action(action, (), inputs)
                            else "no filter to clear")
        row = inputs.row
        if action == "report" and row is None:
            return "no thread selected"
        forwards = inputs.forwards if action == "forward" else None
        reason = unavailable(action, row, connected=inputs.connected, busy_actions=inputs.busy,
                             parent_forwards=forwards,
                             stoppable_below=action == "stop_tree" and inputs.stoppable_below)
        if action == "forward" and reason and row is not None:  # no CLI flag here
            reason = forward_refusal(row, again=FORWARD_AGAIN) or \
                forwarded_refusal(row, forwards or {}, FORWARD_AGAIN) or reason
        return reason

    def check_action(self, action: str, parameters: tuple[object, ...],
                     inputs: GateInputs | None = None) -> bool | None:
        # False hides a key that makes no sense on this screen; None dims one that does not
        # apply to the selected thread right now.
        inputs = inputs or gate_inputs(self.app)
        if action == "open" and isinstance(inputs.screen, TranscriptScreen):
            return False
        if inputs.line_keys is not None and action not in inputs.line_keys:
            return False  # a line is edited: its keys are text
        gate = self.app.triage.triage_gate(action, inputs)
        if gate is False:
            return False
        if action == "report":
            return None if inputs.row is None else True
        if gate is True:
            return True
        if action in NEEDS_ROW:
            return None if self.why_not(action, inputs) else True
        if action in MAIN_ONLY:
            if not inputs.on_main:
                return False
            if action == "clear_filter":  # escape closes the line, even an empty one
                return True if inputs.filter_active or inputs.line_shown else None
        if action == "help" and isinstance(inputs.screen, HelpScreen):
            return None
        return True

    def refused(self, action: str, reason: str) -> None:
        spec = BY_ID.get(action)
        self.app.notify(reason, title=spec.label if spec else action, severity="warning",
                    markup=False)

    def run_from_palette(self, action: str) -> None:
        reason = self.why_not(action) if not self.check_action(action, ()) else None
        if reason:
            self.refused(action, reason)
            return
        getattr(self.app, f"action_{action}")()

    # -- flows in workers --

    def start_flow(self, thread_id: str, kind: str, run: Callable[[Report], Awaitable[Any]],
                   *, deadline_s: float | None = None) -> None:
        started = self.app.clock()
        deadline = started + timedelta(seconds=deadline_s) if deadline_s else None

        def report(phase: str, text: str) -> None:
            self.app.post_message(ActionUpdate(
                ActionStatus(thread_id, kind, phase, text, started, deadline)))

        async def job() -> None:
            try:
                await run(report)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a flow never takes the app down
                report("unknown", f"outcome unknown: {describe(exc)}")

        # Record "pending" now, so the key is gated before the worker even starts.
        self.app.statuses.setdefault(thread_id, {})[kind] = ActionStatus(
            thread_id, kind, "pending", f"{action_name(kind)}…", started, deadline)
        self.app.run_worker(job(), name=f"{kind} {thread_id}", group=f"{kind}:{thread_id}",
                        exclusive=True, exit_on_error=False)
        self.app.renderer.patch([thread_id])

    def timeout(self) -> float:
        return self.app.config.confirm_timeout_s

    # -- open --

    def open(self) -> None:
        thread_id = self.app.current_thread_id()
        if thread_id is None or isinstance(self.app.screen, TranscriptScreen):
            return
        opened = self.app.source.open_thread(thread_id)

        def closed(_result: object) -> None:
            if opened:
                self.app.source.close_thread(thread_id)
            self.app.renderer.patch([thread_id])

        self.app.push_screen(TranscriptScreen(thread_id, replaying=self.app.triage.replaying),
                             callback=closed)
        self.app.call_after_refresh(self.app.renderer.patch, [thread_id])

    # -- settle --

    def settle(self) -> None:
        row, view = self.app.current_row(), self.app.view
        if row is None or view is None:
            return
        thread_id = row.id

        async def check(report: Report) -> None:
            report("pending", "checking which children share its provider session…")
            found = await actions.check_settle(self.app.source, view, thread_id)
            self.app.post_message(SettleChecked(thread_id, found.risks,
                                            [r.id for r in found.unsettled]))

        self.start_flow(thread_id, "settle", check)

    def settle_checked(self, message: SettleChecked) -> None:
        self.app.statuses.get(message.thread_id, {}).pop("settle", None)
        view = self.app.view
        row = view.row(message.thread_id) if view else None
        if row is None or view is None:
            self.app.renderer.patch([message.thread_id])
            return
        title = row.title or row.id
        body = Text("Settling marks the thread done in the inbox and detaches its live "
                    "provider sessions.")
        names = [self.app.title_of(t) for t in message.unsettled]
        if names:
            body.append("\nUnsettled children stay as they are: ")
            body.append(", ".join(names))
        warning = None
        choices = [Choice("settle", "Settle")]
        if message.risks:
            warning = Text("⚠ Unsettled children share this thread's provider session:\n")
            for risk in message.risks:
                warning.append(f"  • {self.app.title_of(risk.child_id)}")
                warning.append(f" (session {risk.session_id})\n")
            warning.append("Settling detaches that session: the child's next turn can hang "
                           "with its reply lost (seed 004). Settle the children first.")
            choices = [Choice("children", "Settle children first"),
                       Choice("settle", "Settle anyway", "error")]
        self.app.push_screen(
            ConfirmScreen(f"Settle {_quoted(title)}?", body, choices, warning=warning),
            callback=lambda choice: self._settle_chosen(row.id, choice, message.unsettled),
        )
        self.app.renderer.patch([message.thread_id])

    def _settle_chosen(self, thread_id: str, choice: str | None, unsettled: list[str]) -> None:
        if choice is None:
            self.app.renderer.patch([thread_id])
            return
        children = unsettled if choice == "children" else []

        def settle_all(report: Report) -> Awaitable[Any]:
            return actions.settle_children_first(
                self.app.source, thread_id, children, report=report, clock=self.app.clock,
                timeout=self.timeout(), title_of=self.app.title_of, new_id=self.app.new_id)

        self.start_flow(thread_id, "settle", settle_all)

    # -- interrupt --

    def interrupt(self) -> None:
        row, view = self.app.current_row(), self.app.view
        if row is None or view is None:
            return
        previous = self.app.statuses.get(row.id, {}).get("interrupt")
        force = row.state == "stuck" or (previous is not None and previous.phase == "failed")
        choices = interrupt_choices(view, row, force=force)
        if not choices:
            return
        body = Text()
        for i, choice in enumerate(choices):
            body.append("\n" if i else "")
            body.append(f"• {choice.label}", style="bold")
            stops = choice.stops or f"run {choice.run_id} of {_quoted(choice.title)}"
            body.append(f"\n  stops {stops}: ")
            body.append(choice.consequence)
        buttons = [Choice(c.key, c.label, "warning" if c.key.startswith("child:") else "error")
                   for c in choices]
        flows_by_kind = {"force": actions.force_stop}
        by_key = {c.key: c for c in choices}

        def chosen(key: str | None) -> None:
            choice = by_key.get(key or "")
            if choice is None:
                return
            self.app.quiet([choice.thread_id])
            flow = flows_by_kind.get(choice.key.split(":", 1)[0], actions.interrupt)
            self.start_flow(choice.thread_id, "interrupt", lambda report: flow(
                self.app.source, choice.thread_id, choice.run_id, report=report, clock=self.app.clock,
                timeout=self.timeout(), new_id=self.app.new_id))

        self.app.push_screen(ConfirmScreen(f"Interrupt {_quoted(row.title or row.id)}?", body,
                                       buttons), callback=chosen)

    # -- check-in --

    def checkin(self) -> None:
        row = self.app.current_row()
        if row is None:
            return
        self.checkin_now(row.id)

    def settle_now(self, thread_id: str) -> None:
        """Settle without the confirmation: the demo's own seed 004 step (autopilot.py)."""
        self.start_flow(thread_id, "settle", lambda report: actions.settle(
            self.app.source, thread_id, report=report, clock=self.app.clock, timeout=self.timeout(),
            new_id=self.app.new_id))

    def checkin_now(self, thread_id: str) -> None:
        cfg = self.app.config
        self.start_flow(thread_id, "checkin", lambda report: actions.checkin(
            self.app.source, thread_id, report=report, clock=self.app.clock, text=cfg.checkin_text,
            expect=cfg.checkin_expect, timeout_s=cfg.checkin_timeout_s),
            deadline_s=cfg.checkin_timeout_s)

    # -- answer --

    def answer(self) -> None:
        row = self.app.current_row()
        if row is None or row.pending_request is None:
            return
        request, thread_id = row.pending_request, row.id
        prompt = self.app.source.transcripts.get(thread_id).prompts.get(request.id)
        title = f"Answer {_quoted(row.title or row.id)}"
        body = Text(f"{request.kind} request {request.id}")
        if prompt is not None and prompt.prompt:
            body.append("\n\n")
            body.append(prompt.prompt)

        def respond(**answer: Any) -> None:
            self.start_flow(thread_id, "answer", lambda report: actions.respond(
                self.app.source, thread_id, request.id, report=report, clock=self.app.clock,
                timeout=self.timeout(), new_id=self.app.new_id, **answer))

        if request.kind == "user_input" or (prompt is not None and prompt.questions):
            questions = prompt.questions if prompt is not None and prompt.questions else ()
            fields = [Field(qid, text or qid) for qid, text in questions] or [
                Field("answer", "Answer")]
            self.app.push_screen(PromptScreen(title, body, fields, submit="Answer"),
                             callback=lambda values: values and respond(answers=values))
            return
        offered = prompt.options if prompt is not None and prompt.options else ()
        options = [(d, label) for d, label in offered if d in SENDABLE_DECISIONS]
        options = options or list(DEFAULT_DECISIONS)
        choices = [Choice(decision, label, "error" if decision in ("decline", "cancel")
                          else "primary") for decision, label in options]
        self.app.push_screen(ConfirmScreen(title, body, choices),
                         callback=lambda decision: decision and respond(decision=decision))

    # -- message --

    def message(self) -> None:
        row = self.app.current_row()
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
                    self.app.source, thread_id, text, report=report, clock=self.app.clock,
                    timeout=self.timeout(), new_id=self.app.new_id))

        self.app.push_screen(PromptScreen(f"Message to {_quoted(row.title or row.id)}", body,
                                      [Field("text", "Message")]), callback=send)

    # -- filters, panes, help --

    def raw(self) -> None:
        """Raw ids and evidence in the detail and transcript, or names and stories again."""
        self.app.raw_ids = not self.app.raw_ids
        self.app.notify("raw ids and evidence" if self.app.raw_ids else "names and stories",
                    title="detail", timeout=2, markup=False)
        self.app.renderer.patch(self.app.renderer.selected())

    def copy_id(self) -> None:
        """The thread's raw id to the clipboard (OSC 52) and in a toast, to read or select."""
        thread_id = self.app.current_thread_id()
        if thread_id is None:
            self.app.notify("no thread selected", title="copy id", severity="warning", markup=False)
            return
        # the id the server knows: an environment's `NAME:` qualifier is ours, not the wire's
        raw_id = unqualify(thread_id)[1] if getattr(self.app.source, "environments", None) \
            else thread_id
        if not is_display_safe(raw_id, one_line=True):
            # a server picks its ids: pasted into a shell, a newline in one runs what follows
            self.app.notify(f"{display_text(raw_id, one_line=True)}\n(holds control characters: "
                        "not copied)", title="thread id", severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(raw_id)
        self.app.notify(f"{raw_id}\n(copied with OSC 52 where the terminal allows it)",
                    title="thread id", timeout=8, markup=False)

    def timeline(self) -> None:
        self.app.show_timeline(self.app.main_screen.query_one("#timeline").has_class("-off"))
        self.app.renderer.patch(self.app.renderer.selected())

    def help(self) -> None:
        keys = {spec_id: self.app.config.keys.get(spec_id, spec.key)
                for spec_id, spec in BY_ID.items()}
        from textual.binding import Binding

        content = help_text(keys, lambda key: self.app.get_key_display(Binding(key, "")),
                            stacked=self.app.size.width < NARROW_HELP)
        self.app.push_screen(HelpScreen(content))
