"""The Redis read model: the contract on a real server, notifications, a password, and an outage.

The contract and notification tests use the Redis of ``scripts/redis.sh`` (``REDIS_URL``), each
under a prefix of its own. The password and outage tests start private ``redis-server`` processes
(Debian's binary) on free loopback ports, so they can require a password or stop and restart the
server without disturbing anyone else.
"""

from __future__ import annotations

import json
import random
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis
from redis.client import PubSub

from controller.config.floor import load_floor_config
from controller.model.errors import StoreUnavailable
from controller.model.state import FloorState
from streams.adapters.memory import MemoryLog
from streams.adapters.redis.read_model import RedisReadModel, redact
from streams.cli.simulate import sim_tables
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import SignageFeed, meter_fields
from streams.ports import MeterChange, MeterReadModel
from streams.sim.floor import AKQ_SPADES, COMMUNITY_ROYAL, FloorSimulator, ForcedHands
from tests.integration.services import in_ci, require_redis
from tests.streams.adapters.read_model_contract import MeterReadModelContract

pytestmark = pytest.mark.integration

CONFIG = Path("examples/pa-three-card-poker.toml")
AT = "2026-11-29T12:00:00.000Z"
START_TIMEOUT_S = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PrivateRedis:
    """A ``redis-server`` of this test's own: no persistence, loopback only, stoppable."""

    def __init__(self, folder: Path, password: str | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            message = "redis-server not installed (apt-get install redis-server)"
            if in_ci():
                pytest.fail(f"CI is set, so a missing service is an error: {message}")
            pytest.skip(message)
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.password = password
        self.process: subprocess.Popen[bytes] | None = None
        lines = [f"port {self.port}", "bind 127.0.0.1", f'dir "{folder}"', 'save ""']
        lines += ["appendonly no", "daemonize no", f'logfile "{folder / "redis.log"}"']
        if password is not None:
            lines.append(f'requirepass "{password}"')  # in a 0600 file, not on the command line
        self.conf = folder / "redis.conf"
        self.conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.conf.chmod(0o600)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen([self.binary, str(self.conf)])
        client = redis.Redis(port=self.port, password=self.password, socket_timeout=1)
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    pass
                assert self.process.poll() is None, (self.folder / "redis.log").read_text()
                assert time.monotonic() < deadline, "private redis-server did not answer PING"
                time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def _drop(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class TestRedisReadModel(MeterReadModelContract):
    @pytest.fixture(autouse=True)
    def _redis(self) -> Iterator[None]:
        self.url = require_redis()
        self.prefix = f"test-{uuid.uuid4().hex}"
        self.models: list[RedisReadModel] = []
        yield
        for model in self.models:
            model.close()
        _drop(self.url, self.prefix)

    def make_model(self) -> MeterReadModel:
        model = RedisReadModel(self.url, prefix=self.prefix)
        self.models.append(model)
        return model

    def test_signs_read_one_plain_hash_per_meter(self) -> None:
        model = RedisReadModel(self.url, prefix=self.prefix)
        self.models.append(model)
        model.publish("tcp-progressive", 12, {"amount": "1000.14", "status": "live"})
        raw = redis.Redis.from_url(self.url, decode_responses=True)
        try:
            stored = raw.hgetall(f"{self.prefix}:meter:tcp-progressive")
        finally:
            raw.close()
        assert stored == {"amount": "1000.14", "status": "live", "seq": "12"}
        both = model.read_all(["tcp-progressive", "never"])
        assert both == {"tcp-progressive": stored}

    def test_a_change_is_notified_once_and_a_stale_update_not_at_all(self) -> None:
        model = RedisReadModel(self.url, prefix=self.prefix)
        self.models.append(model)
        with model.subscribe() as changes:
            assert model.publish("m-1", 3, {"amount": "3.00"})
            assert changes.get(timeout=5.0) == MeterChange("m-1", 3)
            assert not model.publish("m-1", 2, {"amount": "2.00"})
            assert not model.publish("m-1", 3, {"amount": "3.00"})
            assert changes.get(timeout=0.3) is None
            assert model.publish("m-2", 1, {"amount": "1.00"})
            assert changes.get(timeout=5.0) == MeterChange("m-2", 1)

    def test_the_notification_is_small_json_with_meter_and_seq(self) -> None:
        model = RedisReadModel(self.url, prefix=self.prefix)
        self.models.append(model)
        raw = redis.Redis.from_url(self.url, decode_responses=True)
        subscribe: Callable[..., PubSub] = raw.pubsub  # typed under redis-py 8.1 and 8.2 alike
        pubsub = subscribe(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(f"{self.prefix}:meters")
            model.publish("m-1", 8, {"amount": "8.00", "status": "live"})
            deadline = time.monotonic() + 5.0
            message = None
            while message is None and time.monotonic() < deadline:
                message = pubsub.get_message(timeout=0.5)
            assert message is not None
            assert json.loads(message["data"]) == {"meter_id": "m-1", "seq": 8}
        finally:
            pubsub.close()
            raw.close()


def test_an_unreachable_redis_raises_store_unavailable_quickly() -> None:
    model = RedisReadModel(f"redis://:secret@127.0.0.1:{free_port()}/0", prefix="nowhere")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="Redis read model") as caught:
        model.publish("m-1", 1, {"amount": "1.00"})
    assert time.monotonic() - started < 2.0
    assert isinstance(caught.value.__cause__, redis.RedisError)
    assert "secret" not in str(caught.value)
    with pytest.raises(StoreUnavailable):
        model.read("m-1")
    with pytest.raises(StoreUnavailable):
        model.read_all(["m-1"])
    with pytest.raises(StoreUnavailable):
        model.subscribe()
    assert not model.ping()
    model.close()


def test_redact_hides_credentials() -> None:
    assert redact("redis://:pw@h:6379/0") == "redis://***@h:6379/0"
    assert redact("redis://user:pw@h/0") == "redis://***@h/0"
    assert redact("redis://h:6379/0") == "redis://h:6379/0"


def test_a_password_protected_redis_works_end_to_end(tmp_path: Path) -> None:
    password = f"pw-{uuid.uuid4().hex}"
    server = PrivateRedis(tmp_path, password=password)
    server.start()
    try:
        model = RedisReadModel(server.url, password=password)
        assert model.ping()
        with model.subscribe() as changes:
            assert model.publish("m-1", 1, {"amount": "1.00"})
            assert changes.get(timeout=5.0) == MeterChange("m-1", 1)
        assert model.read("m-1") == {"amount": "1.00", "seq": "1"}
        model.close()
        in_url = RedisReadModel(f"redis://:{password}@127.0.0.1:{server.port}/0")
        assert in_url.read("m-1") == {"amount": "1.00", "seq": "1"}
        in_url.close()
        for wrong in (None, "not-the-password"):
            refused = RedisReadModel(server.url, password=wrong)
            with pytest.raises(StoreUnavailable) as caught:
                refused.publish("m-1", 2, {"amount": "2.00"})
            assert password not in str(caught.value)
            refused.close()
    finally:
        server.stop()


def _floor(feed_model: RedisReadModel) -> tuple[EmbeddedController, SignageFeed, FloorSimulator]:
    log = MemoryLog()
    engine = EmbeddedController(log, log)
    feed = SignageFeed(feed_model, lambda: engine.state, clock=lambda: AT)
    engine.subscribe(feed.listener)
    text = CONFIG.read_text(encoding="utf-8")
    engine.start(text, str(CONFIG))
    forced = ForcedHands(probability=0.05, deals=(AKQ_SPADES, COMMUNITY_ROYAL))
    tables = sim_tables(load_floor_config(text, str(CONFIG)))
    start = datetime(2026, 11, 29, 12, tzinfo=UTC)
    simulator = FloorSimulator(tables, random.Random(2026), start, forced_hands=forced)
    return engine, feed, simulator


def _ingest(engine: EmbeddedController, simulator: FloorSimulator, events: int) -> float:
    """Submit ``events`` simulated events in batches of 20; the slowest batch's seconds."""
    raws, slowest = list(simulator.events(events)), 0.0
    for i in range(0, len(raws), 20):
        started = time.monotonic()
        outcomes = engine.submit(raws[i : i + 20])
        slowest = max(slowest, time.monotonic() - started)
        assert {o.status for o in outcomes} == {"accepted"}
    return slowest


def _assert_signage_matches(model: RedisReadModel, state: FloorState) -> None:
    ids = sorted(state.meters)
    assert len(ids) >= 2
    shown = model.read_all(ids)
    for meter_id in ids:
        meter = state.meters[meter_id]
        want = {**meter_fields(meter), "updated_at": AT, "seq": str(meter.seq)}
        assert shown.get(meter_id) == want, meter_id


def test_signage_catches_up_after_redis_was_down_while_ingest_went_on(
    private_redis: PrivateRedis,
) -> None:
    model = RedisReadModel(private_redis.url, socket_timeout=0.2, connect_timeout=0.2)
    engine, feed, simulator = _floor(model)
    _ingest(engine, simulator, 300)
    _assert_signage_matches(model, engine.state)
    before = {m: s.seq for m, s in engine.state.meters.items()}

    private_redis.stop()
    slowest = _ingest(engine, simulator, 1_200)  # ingest keeps accepting
    assert slowest < 1.5, f"a batch waited {slowest:.2f}s on signage"
    moved = {m for m, s in engine.state.meters.items() if s.seq != before[m]}
    assert moved, "the outage window moved meters"
    assert feed.dirty_count >= len(moved)
    assert feed.flush() > 0  # still down: flushing fails quietly and keeps them dirty

    private_redis.start()  # back, and empty (no persistence): every meter must be republished
    assert feed.flush() == 0
    _assert_signage_matches(model, engine.state)

    _ingest(engine, simulator, 200)  # and the live feed carries on
    _assert_signage_matches(model, engine.state)
    model.close()
