"""Issue 15 end to end on a real `jackpot serve`: a correction whose service is SIGKILLed 1 to
10 ms after it was sent is applied exactly once when the client retries with its key (finding
1); four parallel maximal bodies of ``[{},{},...]`` do not blow the process up (finding 8, RSS).
"""

from __future__ import annotations

import contextlib
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.streams.http.support import CONFIG, ROOT

pytestmark = pytest.mark.integration
JACKPOT = str(Path(sys.executable).parent / "jackpot")
CORRECT = "/v1/meters/tcp-progressive/corrections"


class Serve:
    """One `jackpot serve` over a database kept across kills."""

    def __init__(self, folder: Path, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        tokens = folder / "tokens.json"
        add = [JACKPOT, "token", "add", "--file", str(tokens), "--name", "ann"]
        self.token = subprocess.run(
            [*add, "--role", "supervisor"], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.command = [
            JACKPOT, "serve", "--config", str(CONFIG), "--db", str(folder / "jackpot.db"),
            "--tokens", str(tokens), "--port", str(port), "--log-level", "warning",
            "--snapshot-key", str(folder / "secrets" / "snapshot.key"),
        ]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for _ in range(300):
            assert self.process.poll() is None, "jackpot serve exited"
            try:
                if httpx.get(f"{self.base}/readyz", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        pytest.fail("jackpot serve did not become ready")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)

    def peak_rss_mb(self) -> float:
        assert self.process is not None
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        line = next(x for x in status.splitlines() if x.startswith("VmHWM"))
        return int(line.split()[1]) / 1024

    def rss_mb(self) -> float:
        assert self.process is not None
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        line = next(x for x in status.splitlines() if x.startswith("VmRSS"))
        return int(line.split()[1]) / 1024


def _free_port() -> int:
    import socket  # noqa: PLC0415 - only here

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    service = Serve(tmp_path, _free_port())
    service.start()
    try:
        yield service
    finally:
        service.stop()


def _meter(serve: Serve) -> str:
    headers = {"Authorization": f"Bearer {serve.token}"}
    answer = httpx.get(f"{serve.base}/v1/meters/tcp-progressive", headers=headers, timeout=10)
    amount: str = answer.json()["amount"]
    return amount


def test_a_correction_cut_off_by_sigkill_is_applied_once_on_retry(serve: Serve) -> None:
    chance = random.Random(15)
    for kill in range(10):
        headers = {"Authorization": f"Bearer {serve.token}", "Idempotency-Key": f"fix-{kill}"}
        body = {"amount": "1.00", "reason": f"sign credit {kill}"}

        def send(headers: dict[str, str] = headers, body: dict[str, str] = body) -> None:
            with contextlib.suppress(httpx.TransportError):  # the client sees a dropped connection
                httpx.post(f"{serve.base}{CORRECT}", json=body, headers=headers, timeout=5)

        sender = threading.Thread(target=send)
        sender.start()
        time.sleep(chance.uniform(0.001, 0.010))
        serve.kill()
        sender.join()
        serve.start()
        retry = httpx.post(f"{serve.base}{CORRECT}", json=body, headers=headers, timeout=10)
        assert retry.status_code == 200, retry.text
        assert _meter(serve) == f"{1001 + kill}.00"  # once per key, whichever try landed


def test_four_parallel_maximal_bodies_add_under_100_mb(serve: Serve) -> None:
    body = b"[" + b",".join([b"{}"] * 1_398_000) + b"]"  # just under the 4 MiB limit
    headers = {"Authorization": f"Bearer {serve.token}"}
    before = serve.rss_mb()
    answers: list[int] = []

    def post() -> None:
        answer = httpx.post(f"{serve.base}/v1/events", content=body, headers=headers, timeout=60)
        answers.append(answer.status_code)

    for _ in range(3):
        posts = [threading.Thread(target=post) for _ in range(4)]
        for thread in posts:
            thread.start()
        for thread in posts:
            thread.join()
    assert answers == [413] * 12
    assert serve.peak_rss_mb() - before < 100, (before, serve.peak_rss_mb())
