"""Leaving the app: `q` (and ctrl+c, ctrl+q) with a stop in flight, and a source that failed
for good.

- A stop (interrupt, stop the tree) whose outcome the stream has not told yet: quitting now
  loses the outcome, so `q` asks first: wait for it, or quit anyway (then `quit_note`, printed
  by `tui/main.py` once the screen is restored, says which outcome is unknown).
- A fatal failure (the server refused the token, another protocol) before anything was
  shown: no banner to stare at; the app ends with exit 2 and `fatal`, one line on stderr.
  After the tree was live it is a banner, and the exit code on quitting is still 2.

A controller the app holds (`app.quitting`); the app keeps `fatal` and `quit_note`, which
`tui/main.py` reads once the app ended.
"""

from __future__ import annotations

from rich.text import Text

from t3tui.tui.app.messages import SourceEnded
from t3tui.tui.app.port import AppPort
from t3tui.tui.screens.modals import Choice, ConfirmScreen

STOPS = frozenset({"interrupt", "stop_tree"})
EXIT_FATAL = 2


class Quitting:
    """`quit` for the app's `action_quit`, and `failed_for_good` for the source worker."""

    def __init__(self, app: AppPort) -> None:
        self.app = app

    def in_flight(self) -> list[tuple[str, str]]:
        """(what, thread title) of every stop still waiting for its outcome."""
        out = []
        for per_thread in self.app.statuses.values():
            for status in per_thread.values():
                if status.kind in STOPS and not status.done:
                    out.append((status.name, self.app.title_of(status.thread_id)))
        return out

    def quit(self) -> None:
        flying = self.in_flight()
        if not flying:
            self.app.exit(return_code=EXIT_FATAL if self.app.fatal else 0)
            return
        body = Text()
        for n, (what, title) in enumerate(flying):
            body.append(("\n" if n else "") + f"• {what} on “{title}”: ", style="bold")
            body.append("sent; the stream has not told its outcome yet")
        body.append("\n\nQuit now and t3tui will not see whether it landed (the server may "
                    "still stop the run). Wait, and the outcome shows here and in a toast.")
        names = ", ".join(f"{what} on “{title}”" for what, title in flying)

        def chosen(key: str | None) -> None:
            if key == "quit":
                self.app.quit_note = f"quit with {names} in flight: its outcome is unknown"
                self.app.exit(return_code=EXIT_FATAL if self.app.fatal else 0)

        self.app.push_screen(
            ConfirmScreen("A stop is in flight", body,
                          [Choice("wait", "Wait for the outcome"),
                           Choice("quit", "Quit anyway", "error")]),
            callback=chosen)

    def failed_for_good(self, reason: str) -> None:
        """The source gave up (FatalError): end now if nothing was ever live, else a banner."""
        self.app.fatal = reason
        if self.app.last_live is None:
            self.app.exit(return_code=EXIT_FATAL)
            return
        self.app.post_message(SourceEnded(reason))
