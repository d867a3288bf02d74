"""Real headless Chromium for page tests, driven over the DevTools protocol (CDP) on a websocket.

Needs only Debian's ``chromium`` and the ``websockets`` package: no driver binary and no browser
download. `require_chromium` skips the calling test when either is missing, and fails it when
``CI`` is set (as `tests.integration.services` does for Kafka and Redis). `decode_png` reads the
screenshots Chromium returns (8-bit RGB or RGBA, not interlaced) with ``zlib`` alone.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.services import in_ci

STARTUP_SECONDS = 30.0
Rect = dict[str, float]


def require_chromium() -> str:
    """The Chromium executable (``$CHROMIUM`` or on PATH); skip, or fail under CI, without it."""
    named = os.environ.get("CHROMIUM")
    candidates = [named] if named else ["chromium", "chromium-browser", "google-chrome"]
    found = next(filter(None, map(shutil.which, candidates)), None)
    problem = "" if found else f"no {' or '.join(candidates)} (scripts/system-deps.sh installs it)"
    try:
        import websockets.sync.client  # noqa: F401, PLC0415
    except ImportError:
        problem = "the websockets package is missing (pip install websockets)"
    if problem:
        if in_ci():
            pytest.fail(f"CI is set, so a missing browser is an error: {problem}", pytrace=False)
        pytest.skip(problem)
    assert found is not None
    return found


@dataclass(frozen=True, slots=True)
class Image:
    """Decoded pixels: ``channels`` bytes per pixel, rows top to bottom."""

    width: int
    height: int
    channels: int
    data: bytes

    def rgb(self, x: int, y: int) -> tuple[int, int, int]:
        at = (y * self.width + x) * self.channels
        return self.data[at], self.data[at + 1], self.data[at + 2]

    def share_near(self, colour: tuple[int, int, int], tolerance: int = 40) -> float:
        """The share of pixels within ``tolerance`` of ``colour`` on every channel."""
        near = sum(
            all(abs(c - t) <= tolerance for c, t in zip(self.rgb(x, y), colour, strict=True))
            for y in range(self.height)
            for x in range(self.width)
        )
        return near / (self.width * self.height)

    def distinct_colours(self) -> int:
        return len({self.rgb(x, y) for y in range(self.height) for x in range(self.width)})


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def decode_png(data: bytes) -> Image:
    """An 8-bit, non-interlaced RGB or RGBA PNG's pixels."""
    width, height = png_size(data)
    depth, colour_type, interlace = data[24], data[25], data[28]
    assert (depth, interlace) == (8, 0), (depth, interlace)
    assert colour_type in (2, 6), colour_type
    channels = 4 if colour_type == 6 else 3
    idat, at = b"", 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        if data[at + 4 : at + 8] == b"IDAT":
            idat += data[at + 8 : at + 8 + length]
        at += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    out, previous = bytearray(), bytearray(stride)
    for y in range(height):
        kind, row = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        _unfilter(kind, row, previous, channels)
        out += row
        previous = row
    return Image(width, height, channels, bytes(out))


def _unfilter(kind: int, row: bytearray, up: bytearray, bpp: int) -> None:
    for i in range(len(row)):
        left = row[i - bpp] if i >= bpp else 0
        corner = up[i - bpp] if i >= bpp else 0
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 2:
            row[i] = (row[i] + up[i]) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + (left + up[i]) // 2) & 0xFF
        elif kind == 4:
            p = left + up[i] - corner
            pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - corner)
            pred = left if pa <= pb and pa <= pc else up[i] if pb <= pc else corner
            row[i] = (row[i] + pred) & 0xFF


class Browser:
    """One page of a headless Chromium, over its CDP websocket."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._next = 0

    def call(self, method: str, **params: object) -> dict[str, Any]:
        """Send a CDP command; its result (events arriving meanwhile are ignored)."""
        self._next += 1
        self._socket.send(json.dumps({"id": self._next, "method": method, "params": params}))
        while True:
            message: dict[str, Any] = json.loads(self._socket.recv(timeout=30))
            if message.get("id") == self._next:
                assert "error" not in message, (method, message["error"])
                result: dict[str, Any] = message["result"]
                return result

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in answer, answer["exceptionDetails"]
        return answer["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15.0) -> Any:
        """Poll ``expression`` until it is truthy; its value (AssertionError with the page's
        text on timeout)."""
        deadline, error = time.monotonic() + timeout, ""
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except AssertionError as exc:  # e.g. the element is not there yet
                value, error = None, str(exc)
            if value:
                return value
            time.sleep(0.1)
        text = self.evaluate("document.body ? document.body.innerText : ''")
        msg = (
            f"timed out after {timeout}s waiting for {expression} {error}; the page shows:\n{text}"
        )
        raise AssertionError(msg)

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")

    def rect(self, selector: str) -> Rect:
        """The bounding box of the first element matching ``selector``."""
        found: Rect = self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); "
            "return {x: r.x, y: r.y, width: r.width, height: r.height}; })()"
        )
        return found

    def screenshot(self, clip: Rect | None = None, scale: float = 1.0) -> bytes:
        """A PNG of the viewport, or of ``clip`` scaled by ``scale``."""
        params: dict[str, object] = {"format": "png"}
        if clip is not None or scale != 1.0:
            box = clip or {
                "x": 0,
                "y": 0,
                **self.evaluate("({width: innerWidth, height: innerHeight})"),
            }
            params["clip"] = {**box, "scale": scale}
        return base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])


@contextmanager
def chromium(
    executable: str, profile: Path, width: int = 1280, height: int = 720
) -> Iterator[Browser]:
    """A headless Chromium with one page of ``width`` x ``height``; closed afterwards."""
    from websockets.sync.client import connect  # noqa: PLC0415

    profile.mkdir(parents=True, exist_ok=True)
    command = _command(executable, profile, width, height)
    log = (profile / "chromium.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        port = _devtools_port(profile, process)
        pages = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=5).json()
        target = next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")
        with connect(target, max_size=None, open_timeout=10) as socket:
            browser = Browser(socket)
            browser.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            yield browser
    finally:
        process.terminate()
        process.wait(timeout=15)
        log.close()


def save(browser: Browser, name: str, tmp_path: Path) -> bytes:
    """A PNG of the page kept with the test's files and returned; with ``JACKPOT_SCREENSHOTS``
    set, a JPEG of it there too (the docs' copies: a 4K PNG of glowing gradients is 2.5 MB)."""
    png = browser.screenshot()
    (tmp_path / f"{name}.png").write_bytes(png)
    if folder := os.environ.get("JACKPOT_SCREENSHOTS"):
        Path(folder).mkdir(parents=True, exist_ok=True)
        shot = browser.call("Page.captureScreenshot", format="jpeg", quality=70)
        (Path(folder) / f"{name}.jpg").write_bytes(base64.b64decode(shot["data"]))
    return png


def _devtools_port(profile: Path, process: subprocess.Popen[bytes]) -> int:
    """The port Chromium chose, from the DevToolsActivePort file it writes when ready."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, (profile / "chromium.log").read_text(errors="replace")
        if marker.exists() and marker.read_text().strip():
            return int(marker.read_text().splitlines()[0])
        time.sleep(0.1)
    msg = f"Chromium did not open its DevTools port within {STARTUP_SECONDS}s"
    raise AssertionError(msg)


def _command(executable: str, profile: Path, width: int, height: int) -> list[str]:
    return [
        executable,
        "--headless",
        "--disable-gpu",
        "--hide-scrollbars",
        "--mute-audio",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        *(["--no-sandbox"] if os.geteuid() == 0 else []),  # Chromium refuses root otherwise
        "about:blank",
    ]
