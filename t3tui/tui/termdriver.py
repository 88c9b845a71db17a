"""The driver of the app in a terminal: textual's `LinuxDriver`, continued from a stop it did
not make itself.

textual's driver starts its terminal mode again on every SIGCONT. After its own Ctrl+Z
(SIGTSTP: the mode was left before the stop) that is right. After a stop from outside
(`kill -STOP`, a wrapper whose stop sticks, a debugger) the mode was never left: starting it
again over the running one took the raw mode for the one to restore at exit and started a
second reader of the terminal. A key read by one reader left the other in a read, and at
exit the app's loop waited on that reader for good: deaf to SIGTERM and SIGINT (their
handlers run on the loop), its terminal left raw. Found in tmux, SIGSTOP then SIGCONT.

Here such a SIGCONT keeps the running mode: the terminal's modes are set again (whatever
took the terminal meanwhile, a shell's job control, may have reset them) and the screen is
drawn again whole, on the loop, with the same threads.
"""

from __future__ import annotations

import asyncio
import termios
import tty
from typing import Any

from textual import events
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.geometry import Size


def ours(driver: type[Driver]) -> type[Driver]:
    """The driver the app runs with for textual's choice `driver`: a `t3tui web` tab's ends
    the app with its input (`tabdriver`), a terminal's is `TerminalDriver`."""
    from textual.drivers.web_driver import WebDriver

    if driver is WebDriver:
        from t3tui.tui.tabdriver import TabDriver

        return TabDriver
    return TerminalDriver if driver is LinuxDriver else driver


class TerminalDriver(LinuxDriver):
    """`LinuxDriver`, except that a SIGCONT after a stop from outside keeps the running
    terminal mode (module docstring)."""

    _loop: asyncio.AbstractEventLoop | None = None

    def start_application_mode(self) -> None:
        self._loop = asyncio.get_running_loop()
        super().start_application_mode()

    def _sigcont_application(self, *args: Any) -> None:
        loop = self._loop
        if self._must_signal_resume or not self._auto_restart or loop is None \
                or loop.is_closed():
            # its own Ctrl+Z left the terminal mode before stopping (or the app is
            # suspended on purpose, or not started): textual's own handling applies
            super()._sigcont_application(*args)
            return
        # a signal handler runs between any two steps of the loop's thread: the work is
        # the loop's, as asyncio's own signal handlers do it
        loop.call_soon_threadsafe(self._continued)

    def _continued(self) -> None:
        """Continued after a stop from outside: the running mode's terminal settings again,
        and the whole screen drawn again."""
        try:
            attrs = termios.tcgetattr(self.fileno)
            attrs[tty.LFLAG] = self._patch_lflag(attrs[tty.LFLAG])
            attrs[tty.IFLAG] = self._patch_iflag(attrs[tty.IFLAG])
            attrs[tty.CC][termios.VMIN] = 1
            termios.tcsetattr(self.fileno, termios.TCSANOW, attrs)
        except termios.error:
            pass  # no terminal to set (it went away): the app ends on its hangup
        if self._writer_thread is None:
            return
        self.write("\x1b[?1049h")  # the alternate screen (kept if it still is)
        self._enable_mouse_support()
        self.write("\x1b[?25l")  # no cursor
        self.write("\x1b[?1004h")  # focus reports
        self._enable_bracketed_paste()
        self._disable_line_wrap()
        self.flush()
        width, height = self._get_terminal_size()
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))  # every line drawn again
