"""The parts of `test_serve_faults`: a killable `jackpot serve`, table devices, Redis control.

`Service` runs ``python -m streams.cli.serve`` on a fixed port and database, so a restarted process
is the same service to its clients. `Device` is one table's device: it posts that table's events in
small batches with `streams.sim.post.RetryingPoster` (the simulator's own poster), re-sending an
unanswered batch with the same event ids until the service acknowledges it. `ManagedRedis` stops
and starts the Redis that ``scripts/redis.sh`` manages at the URL the tests were given.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from streams.sim.post import PostStats, RetryingPoster, RetryPolicy
from tests.integration.services import managed_service_env
from tests.streams.http.support import ROOT

READY_SECONDS = 30.0  # a restart that takes longer is a hang, and fails the test
PAUSE = 0.3  # the most a device waits between two batches, seconds
Event = dict[str, object]


class Service:
    """``jackpot serve`` over one database and port, started again after each kill."""

    def __init__(self, folder: Path, port: int, config: Path, redis_url: str, prefix: str) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.output = folder / "serve.log"
        self.command = [
            sys.executable, "-m", "streams.cli.serve", "--config", str(config),
            "--db", str(folder / "jackpot.db"), "--tokens", str(folder / "tokens.json"),
            "--port", str(port), "--redis", redis_url, "--redis-prefix", prefix,
            "--snapshot-every", "400", "--log-level", "warning",
            "--snapshot-key", str(folder / "secrets" / "snapshot.key"),
        ]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None
        self.kills = 0
        self.ready_seconds: list[float] = []  # from each start to its first 200 on /readyz

    def start(self) -> None:
        """Start and wait until it answers /readyz (restored from its snapshot and log)."""
        began = time.monotonic()
        with self.output.open("ab") as sink:
            self.process = subprocess.Popen(
                self.command,
                cwd=ROOT,
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=os.environ | {"PYTHONUNBUFFERED": "1"},
            )
        deadline = began + READY_SECONDS
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.logs()
            try:
                if httpx.get(f"{self.base}/readyz", timeout=1.0).status_code == 200:
                    self.ready_seconds.append(time.monotonic() - began)
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        pytest.fail(f"jackpot serve was not ready {READY_SECONDS:g}s after a start: {self.logs()}")

    def kill(self) -> None:
        """SIGKILL: no drain, no shutdown snapshot, requests in flight cut off."""
        assert self.process is not None
        assert self.process.poll() is None, self.logs()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.kills += 1

    def stop(self) -> None:
        """SIGTERM: drain, snapshot and close (the usual way it ends)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)

    def logs(self) -> str:
        return self.output.read_text(encoding="utf-8", errors="replace")[-4_000:]


class Device(threading.Thread):
    """One table's device: posts its events in order, 1 to 10 at a time, pausing up to `PAUSE`
    seconds between batches as the game goes on (so the faults land while it still posts)."""

    def __init__(
        self, base: str, token: str, events: list[Event], gate: threading.Event, seed: int
    ) -> None:
        super().__init__(daemon=True, name=f"device-{events[0]['table_id']}")
        self.events = events
        self.acknowledged = 0
        self.gate = gate  # cleared: the table is between rounds, nothing to send
        self.sent_at: float | None = None  # when the request now in flight was sent
        self.error: BaseException | None = None
        self._rng = random.Random(seed)  # batch sizes, not a game outcome
        timeout = httpx.Timeout(5.0, connect=1.0)
        headers = {"Authorization": f"Bearer {token}"}
        hooks: dict[str, list[Callable[..., Any]]] = {
            "request": [self._sent],
            "response": [self._answered],
        }
        self._client = httpx.Client(
            base_url=base, headers=headers, timeout=timeout, event_hooks=hooks
        )
        policy = RetryPolicy(retry_for=120.0, first_wait=0.05, max_wait=0.5)
        self.poster = RetryingPoster(self._client, policy, rng=self._rng)

    @property
    def stats(self) -> PostStats:
        return self.poster.stats

    def _sent(self, request: httpx.Request) -> None:
        self.sent_at = time.monotonic()

    def _answered(self, response: httpx.Response) -> None:
        self.sent_at = None

    def idle(self, now: float) -> bool:
        """No request of this device is in flight (or it was sent long ago and failed)."""
        return self.sent_at is None or now - self.sent_at > 1.0

    def run(self) -> None:
        try:
            done = 0
            while done < len(self.events):
                self.gate.wait()
                batch = self.events[done : done + self._rng.randint(1, 10)]
                answer = self.poster.post(batch)
                got = [r["event_id"] for r in answer["results"]]
                assert got == [e["event_id"] for e in batch], "answers out of order"
                done += len(batch)
                self.acknowledged = done
                time.sleep(self._rng.uniform(0.0, PAUSE))
        except BaseException as exc:  # reported by the test thread
            self.error = exc
        finally:
            self._client.close()


class ManagedRedis:
    """Stop and start the Redis of ``scripts/redis.sh``, if it is the one at ``url``."""

    def __init__(self, url: str) -> None:
        self.env = managed_service_env("redis.sh", str(urlsplit(url).port or 6379))
        self.script = str(ROOT / "scripts" / "redis.sh")
        self.restarts = 0

    def stop(self) -> None:
        assert self._run("stop").returncode == 0

    def start(self) -> None:
        started = self._run("start")
        assert started.returncode == 0, started.stderr

    def _run(self, action: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.script, action],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


@dataclass
class FaultRun:
    """Injects the faults of a plan, each once a further share of the input was acknowledged.

    ``kill``: SIGKILL the service (every other one aimed into a request) and start it again.
    ``redis``: stop Redis for 0.5 to 1.5 s while the devices post (publishes fail: the feed backs
    off and republishes when Redis answers). ``quiet-redis``: hold the devices, restart Redis
    with no request in flight (nothing fails, the client just reconnects to an empty Redis), and
    time until every meter hash is back before a single new event (`SignageFeed.check_one`).
    """

    service: Service
    redis: ManagedRedis
    devices: list[Device]
    gate: threading.Event
    signs_complete: Callable[[], bool]
    rng: random.Random = field(default_factory=random.Random)  # fault timing only
    quiet_seconds: list[float] = field(default_factory=list)  # stop, start, every hash back

    def run(self, plan: list[str], total: int) -> None:
        for number, fault in enumerate(plan, start=1):
            self._wait_for(total * number // (len(plan) + 4), number)  # a sixth left after
            time.sleep(self.rng.uniform(0.0, 0.3))
            assert any(d.is_alive() for d in self.devices), f"devices done before fault {number}"
            if fault == "kill":
                self._kill(aimed=number % 2 == 1)
            elif fault == "redis":
                self.redis.stop()
                time.sleep(self.rng.uniform(0.5, 1.5))  # posting goes on without signage
                self.redis.start()
                self.redis.restarts += 1
            else:
                self._quiet_redis_restart()

    def _wait_for(self, mark: int, number: int) -> None:
        deadline = time.monotonic() + 120
        while sum(d.acknowledged for d in self.devices) < mark:
            errors = [repr(d.error) for d in self.devices if d.error is not None]
            assert not errors, f"a device failed: {errors[0]}\n{self.service.logs()}"
            assert any(d.is_alive() for d in self.devices), f"devices stopped before {number}"
            assert time.monotonic() < deadline, f"no progress to {mark}: {self.service.logs()}"
            time.sleep(0.01)

    def _kill(self, *, aimed: bool) -> None:
        """Aimed: soon after a device sent a request (deciding, writing, committed but not yet
        answered, or answered), so some retries meet events already applied."""
        deadline = time.monotonic() + 10
        while aimed and time.monotonic() < deadline:
            now = time.monotonic()
            if any(d.sent_at is not None and now - d.sent_at < 0.002 for d in self.devices):
                time.sleep(self.rng.uniform(0.0, 0.006))  # a batch takes about 4 ms
                break
            time.sleep(0.0005)
        self.service.kill()
        time.sleep(self.rng.uniform(0.0, 0.5))  # devices meet a closed port meanwhile
        self.service.start()

    def _quiet_redis_restart(self) -> None:
        self.gate.clear()
        try:
            while not all(d.idle(time.monotonic()) for d in self.devices):
                time.sleep(0.005)
            began = time.monotonic()
            self.redis.stop()
            self.redis.start()
            self.redis.restarts += 1
            while not self.signs_complete():
                assert time.monotonic() - began < 10.0, "signage not restored within 10 s"
                time.sleep(0.05)
            self.quiet_seconds.append(time.monotonic() - began)
        finally:
            self.gate.set()
