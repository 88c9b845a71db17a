"""The driver of a `t3tui web` tab's app: textual's `WebDriver`, ending the app with its input.

textual-serve relays a browser tab through the app process's stdin and stdout. Its stock
driver's input thread simply returns at the end of stdin, and nothing else tells the app
that nobody is there any more: when the relay went without sending "quit" (`t3tui web`
killed, or its handler cancelled while the tab went away), the app ran on unwatched,
reparented to PID 1, still polling its servers. Here the end of input ends the app, and if
the app cannot even get to its exit (a write to a pipe nobody reads blocks its loop), the
process ends after a grace period.
"""

from __future__ import annotations

import asyncio
import os
import threading

from textual import messages
from textual.drivers.web_driver import WebDriver

EXIT_GRACE_S = 10.0  # time for a clean exit once the input ended, before a hard one


class TabDriver(WebDriver):
    """`WebDriver`, except that the end of its input ends the app (module docstring)."""

    def start_application_mode(self) -> None:
        self._loop = asyncio.get_running_loop()
        super().start_application_mode()

    def run_input_thread(self) -> None:
        super().run_input_thread()
        if self.exit_event.is_set():
            return  # the app is stopping already (it stopped reading on purpose)
        asyncio.run_coroutine_threadsafe(self._app._post_message(messages.ExitApp()),
                                         loop=self._loop)
        # nobody reads this process any more: whatever holds the exit up, do not outlive it
        timer = threading.Timer(EXIT_GRACE_S, os._exit, args=(1,))
        timer.daemon = True
        timer.start()
