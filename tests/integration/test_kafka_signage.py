"""The signage projector on the real broker and Redis: a worker and ``jackpot kafka signage`` over
a simulated floor with jackpot hits, while Redis is stopped and started (``scripts/redis.sh``) and
the projector is SIGKILLed once and restarted.

Afterwards every meter's hash in Redis holds the fields the embedded engine publishes
(`streams.embedded.signage_feed.meter_fields`) for the meter a fold of the events topic gives, with
that
meter's ``seq``; a meter's state at a ``seq`` is one exact value, and the fold's meters equal the
pure replay's (`streams.cli.replay.replay_state`) to the sub-unit, so the signs show the replay.

Table events use one partition, so that the pure replay is the exact reference. The Redis restart
needs the Redis `scripts/redis.sh` manages at ``REDIS_URL``: the test runs the script with the
environment it was given (``REDIS_PORT``, ``REDIS_RUN_DIR``) and refuses to touch another one.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from controller.config.floor import load_floor_config
from controller.model.state import MeterState
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.redis.read_model import RedisReadModel
from streams.cli.replay import replay_state
from streams.embedded.signage_feed import meter_fields
from streams.scaleout.dump import read_events
from streams.scaleout.ingest import TableEventProducer
from tests.integration.services import managed_service_env, require_kafka, require_redis
from tests.integration.test_kafka_parity import (
    CONFIG,
    REPO,
    Worker,
    deploy,
    simulate,
    stop_process,
    wait_caught_up,
)

pytestmark = pytest.mark.integration

ROUNDS = 20  # about 4,000 table events
WAIT_S = 60.0


def managed_redis_env(url: str) -> dict[str, str]:
    """The environment for ``scripts/redis.sh`` if it manages the Redis at ``url``."""
    return managed_service_env("redis.sh", str(urlsplit(url).port or 6379))


def redis_sh(env: dict[str, str], action: str) -> None:
    script = str(REPO / "scripts" / "redis.sh")
    subprocess.run([script, action], env=env, check=True, capture_output=True, timeout=60)


class Projector:
    """``python -m streams.scaleout.signage`` as a child process, logging to a file."""

    def __init__(self, bootstrap: str, names: TopicNames, url: str, folder: Path) -> None:
        self.command = [sys.executable, "-m", "streams.scaleout.signage", "--bootstrap", bootstrap]
        self.command += ["--prefix", names.prefix, "--config", str(CONFIG), "--redis", url]
        self.command += [
            "--redis-prefix",
            names.prefix,
            "--resync-every",
            "600",
        ]  # only recovery republishes
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = (self.folder / f"projector-{self.starts}.log").open("wb")
        self.process = subprocess.Popen(self.command, cwd=REPO, stdout=log, stderr=log)
        log.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no commit."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        stop_process(self.process)

    def logs(self) -> str:
        return "\n".join(p.read_text() for p in sorted(self.folder.glob("projector-*.log")))


def wait_for(what: str, check: Callable[[], bool], logs: Callable[[], str]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {WAIT_S}s: {what}\n{logs()[-4000:]}")
        time.sleep(0.3)


def expected_hash(meter: MeterState) -> dict[str, str]:
    """What the embedded engine publishes for ``meter`` (without its ``updated_at``)."""
    return {**meter_fields(meter), "seq": str(meter.seq)}


def shown(model: RedisReadModel, meter_ids: list[str]) -> dict[str, dict[str, str]]:
    hashes = model.read_all(meter_ids)
    return {m: {k: v for k, v in h.items() if k != "updated_at"} for m, h in hashes.items()}


def signs_show_the_fold(bootstrap: str, names: TopicNames, model: RedisReadModel) -> bool:
    """Whether Redis holds every meter exactly as a fold of the events topic now has it."""
    fold = read_events(bootstrap, names)
    want = {m: expected_hash(meter) for m, meter in fold.meters.items()}
    return shown(model, list(want)) == want


def test_signs_equal_the_fold_and_the_replay_through_redis_and_projector_faults(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    bootstrap, url = require_kafka(), require_redis()
    env = managed_redis_env(url)
    events = simulate(tmp_path, rounds=ROUNDS, seed=20261130)
    lines = [line for line in events.read_bytes().splitlines() if line.strip()]
    names = deploy(bootstrap, table_partitions=1)
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    meter_ids = list(config.meters)
    model = RedisReadModel(url, prefix=names.prefix)
    producer = TableEventProducer(bootstrap, names, "signage-feeder")
    worker, projector = (
        Worker(bootstrap, names, tmp_path),
        Projector(bootstrap, names, url, tmp_path),
    )
    third = len(lines) // 3

    def send(part: list[bytes]) -> None:
        for line in part:
            producer.send(line)
        producer.flush(timeout=60)

    worker.start()
    projector.start()
    try:
        send(lines[:third])
        wait_for(
            "every meter on a sign",
            lambda: len(model.read_all(meter_ids)) == len(meter_ids),
            projector.logs,
        )
        redis_sh(env, "stop")
        send(lines[third : 2 * third])
        wait_for("the projector degraded", lambda: "degraded" in projector.logs(), projector.logs)
        wait_caught_up(worker, timeout=WAIT_S)  # the worker goes on, and so does the fold;
        time.sleep(1.0)  # then all is quiet: only the projector's own retry can refill Redis
        redis_sh(env, "start")  # empty: no persistence
        wait_for(
            "signs republished after Redis came back",
            lambda: signs_show_the_fold(bootstrap, names, model),
            projector.logs,
        )
        send(lines[2 * third :])
        time.sleep(random.uniform(0.5, 1.5))  # mid-stream
        projector.kill()
        projector.start()
        wait_caught_up(worker, timeout=WAIT_S)
        wait_for(
            "signs caught up after the kill",
            lambda: signs_show_the_fold(bootstrap, names, model),
            projector.logs,
        )
    finally:
        projector.stop()
        worker.stop()
        redis_sh(env, "start")  # a no-op when running: never leave the suite without Redis
    fold = read_events(bootstrap, names)
    assert fold.problems == []
    replayed, _ = replay_state(CONFIG, events)
    assert dict(fold.meters) == dict(replayed.meters)  # every sub-unit field, open rounds too
    assert shown(model, meter_ids) == {m: expected_hash(replayed.meters[m]) for m in meter_ids}
    assert sum(meter.hits for meter in fold.meters.values()) > 0
    assert "recovered" in projector.logs()
    model.close()
    print(
        f"kafka signage: {len(lines)} table events, {fold.records} events-topic records, "
        f"1 Redis restart, {projector.starts - 1} projector kill, "
        f"{time.monotonic() - started:.1f} s"
    )
