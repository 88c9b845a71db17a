"""Headless Chromium driven over the DevTools protocol (CDP), for end-to-end tests of
`t3tui web`: open a page, read the text of its xterm.js terminal, press keys, take a PNG.

No driver package: Chromium's own `--remote-debugging-port` and the `websockets` client the
project already uses. Chromium is told to resolve nothing but loopback, so a page can never
reach the network from a test.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

# Debian's chromium package; `chromium-browser` elsewhere
CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
# textual-serve keeps its xterm.js Terminal in a closure; catch it as it is assigned to
# `this.terminal`, before any page script runs (the page itself is left unchanged).
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "terminal",
      {value, writable: true, configurable: true, enumerable: true});
    if (value && typeof value.focus === "function") window.__t3tuiTerminal = value;
  },
});
"""
SCREEN_TEXT = """(() => {
  const t = window.__t3tuiTerminal;
  if (!t) return null;
  const b = t.buffer.active, rows = [];
  for (let i = 0; i < t.rows; i++) {
    const line = b.getLine(b.viewportY + i);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
})()"""


def find_chromium() -> str | None:
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


class Browser:
    """One headless Chromium with a fresh profile and one page."""

    def __init__(self, executable: str, *, width: int = 1400, height: int = 900,
                 timeout: float = 30.0) -> None:
        self._profile = tempfile.mkdtemp(prefix="t3tui-chromium-")
        self._ids = itertools.count(1)
        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self._profile}",
             "--remote-debugging-port=0", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not port_file.exists() or len(port_file.read_text().splitlines()) < 2:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        self._stack = contextlib.ExitStack()
        self._ws: ClientConnection = self._stack.enter_context(
            connect(f"ws://127.0.0.1:{port}{path}", max_size=None, open_timeout=timeout))
        target = self._send("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._send("Target.attachToTarget", targetId=target,
                                   flatten=True)["sessionId"]
        self.page("Page.enable")
        self.page("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)

    def _send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self._ws.send(json.dumps(message))
        while True:  # events come in between; only our answer matters
            reply = json.loads(self._ws.recv(timeout=30))
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        return self._send(method, self._session, **params)

    def open(self, url: str) -> None:
        self.page("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def screen_text(self) -> str:
        """The terminal's visible lines, as text (empty until the app drew)."""
        return self.evaluate(SCREEN_TEXT) or ""

    def press(self, key: str) -> None:
        """One printable key, typed into the terminal (xterm.js reads its hidden textarea)."""
        self.evaluate("window.__t3tuiTerminal && window.__t3tuiTerminal.focus()")
        code = f"Key{key.upper()}" if key.isalpha() else ""
        for kind in ("keyDown", "keyUp"):
            self.page("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                      text=key if kind == "keyDown" else "",
                      windowsVirtualKeyCode=ord(key.upper()))

    def screenshot(self, path: Path) -> None:
        data = self.page("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        stack = getattr(self, "_stack", None)
        if stack is not None:
            stack.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self._profile, ignore_errors=True)
