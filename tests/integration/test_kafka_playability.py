"""Loss of communication on the Kafka engine (issue 7), on the real broker and Redis.

A worker and ``jackpot kafka signage`` run over a floor whose silence limit is 4 s; a thread
produces a heartbeat for each "alive" table every second onto the table-events topic, as devices
would. Then, reading what signs read (the Redis playability board,
`streams.adapters.redis.playability_board`)
and the projector's ``/metrics``:

1. every table beating: every meter in play;
2. tcp-7 and tcp-8 fall silent: ``tcp-progressive-5`` (linked to those two only) goes NOT IN PLAY,
   the $1 meters stay in play; tcp-7 speaks again: back in play, unplayable at tcp-8 only;
3. the worker is SIGKILLed while every table keeps beating (the controller is down): every meter
   goes NOT IN PLAY after the limit; a new worker brings them back;
4. the projector is SIGKILLed: once its board is older than the limit every sign reads NOT IN
   PLAY; restarted, its very first board has every meter in play again (it read who spoke lately
   from the compacted liveness topic before writing).

And ``jackpot kafka pages`` (the pages fed from Redis) in headless Chromium: the sign shows
"NOT IN PLAY AT TCP-8", then NOT IN PLAY, then its amount again; surveillance the "table silent"
and "table heard" alerts, and then the read side's aggregates (`readside_pages`).

Throughout, the meters (a fold of the events topic) are the ones before the outage: an outage and
a recovery never move a meter, and no heartbeat reaches the events topic.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from confluent_kafka.admin._config import ConfigResource  # not re-exported for type checkers

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.state import MeterState
from streams.adapters.kafka.topics import TopicNames, admin_client
from streams.adapters.redis.playability_board import statuses_from
from streams.adapters.redis.read_model import RedisReadModel
from streams.http.tokens import add_token
from streams.scaleout.dump import read_events
from streams.scaleout.ingest import TableEventProducer, ingest_file
from tests.integration.chromium import chromium, require_chromium
from tests.integration.readside_pages import the_board_is_on_the_page
from tests.integration.services import require_kafka, require_redis
from tests.integration.test_kafka_heartbeats import free_port, heartbeat
from tests.integration.test_kafka_parity import (
    CONFIG,
    REPO,
    Worker,
    deploy,
    simulate,
    stop_process,
    wait_caught_up,
)
from tests.integration.test_kafka_signage import Projector
from tests.integration.test_pages_chromium import table_text
from tests.integration.test_pages_liveness import NOT_IN_PLAY, sign

pytestmark = pytest.mark.integration

LIMIT_S = 4
WAIT_S = 90.0


class Beater(threading.Thread):
    """Produces a heartbeat for each table in ``alive`` every second until stopped."""

    def __init__(self, bootstrap: str, names: TopicNames, tables: list[str]) -> None:
        super().__init__(daemon=True)
        self.producer = TableEventProducer(bootstrap, names, client_id="test-beater")
        self.alive = set(tables)
        self.done = threading.Event()
        self.sent = 0

    def run(self) -> None:
        while not self.done.is_set():
            for table in sorted(self.alive):
                self.sent += 1
                self.producer.send(heartbeat(table, self.sent))
            self.producer.flush()
            self.done.wait(1.0)


def limited_config(folder: Path) -> tuple[Path, FloorConfig]:
    """The example floor with a silence limit of `LIMIT_S` seconds."""
    text = CONFIG.read_text(encoding="utf-8")
    setting = "table_silence_limit_seconds = "
    text, count = re.subn(rf"{setting}\d+", f"{setting}{LIMIT_S}", text)
    assert count == 1
    path = folder / "floor.toml"
    path.write_text(text, encoding="utf-8")
    return path, load_floor_config(text, str(path))


def topic_config(bootstrap: str, topic: str) -> set[tuple[str, str]]:
    """The topic's settings as the broker reports them."""
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    admin = admin_client(bootstrap)  # kept: a client collected mid-call fails its futures
    found = admin.describe_configs([resource])[resource].result(timeout=30)
    return {(name, str(entry.value)) for name, entry in found.items()}


def board_meters(model: RedisReadModel, config: FloorConfig) -> dict[str, object]:
    """Each meter's status as a sign reads it (stale board: every table unplayable)."""
    fields = model.read_playability()
    statuses = statuses_from(fields, config, datetime.now(UTC))
    meters: dict[str, object] = {}
    for meter_id in config.meters:
        value = fields.get(f"meter:{meter_id}")
        stale = not any(s.playable for s in statuses.values())
        meters[meter_id] = "unplayable" if stale or value is None else json.loads(value)
    return meters


def wait_for(
    what: str, check: Callable[[], bool], logs: Callable[[], str], poll: float = 0.2
) -> float:
    """Seconds until ``check()`` held (fail after `WAIT_S`); printed for the record (``-s``)."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > WAIT_S:
            pytest.fail(f"not within {WAIT_S}s: {what}\n{logs()[-4000:]}")
        time.sleep(poll)
    took = time.monotonic() - started
    print(f"playability: {what}: {took:.1f} s")
    return took


def all_in_play(model: RedisReadModel, config: FloorConfig) -> bool:
    meters = board_meters(model, config)
    return all(m == {"status": "in_play", "unplayable_at": []} for m in meters.values())


def none_in_play(model: RedisReadModel, config: FloorConfig) -> bool:
    meters = board_meters(model, config)
    return all(
        m == "unplayable" or (isinstance(m, dict) and m["status"] == "unplayable")
        for m in meters.values()
    )


@dataclass
class Floor:
    """A deployment with a worker, the signage projector and beating tables (`kafka_floor`)."""

    bootstrap: str
    names: TopicNames
    config: FloorConfig
    config_path: Path
    model: RedisReadModel
    worker: Worker
    projector: Projector
    beater: Beater
    metrics_port: int
    meters_before: dict[str, MeterState]

    def logs(self) -> str:
        return self.projector.logs() + self.worker.logs()


@contextmanager
def kafka_floor(tmp_path: Path) -> Iterator[Floor]:
    """A few simulated rounds metered by a worker; then every table beating and the projector
    publishing until every meter is in play. Afterwards: no outage, recovery or heartbeat moved
    a meter, and no heartbeat is on the events topic."""
    bootstrap, url = require_kafka(), require_redis()
    config_path, config = limited_config(tmp_path)
    names = deploy(bootstrap, table_partitions=2)
    ingest_file(bootstrap, names, simulate(tmp_path, rounds=3, seed=5), resume=False)
    worker = Worker(bootstrap, names, tmp_path)
    worker.start()
    wait_caught_up(worker, timeout=180)
    projector = Projector(bootstrap, names, url, tmp_path)
    projector.command[projector.command.index(str(CONFIG))] = str(config_path)
    port = free_port()
    projector.command += ["--metrics-port", str(port)]
    model = RedisReadModel(url, prefix=names.prefix)
    beater = Beater(bootstrap, names, list(config.tables))
    floor = Floor(
        bootstrap, names, config, config_path, model, worker, projector, beater, port,
        read_events(bootstrap, names).meters,
    )  # fmt: skip
    try:
        projector.start()
        beater.start()
        wait_for("every meter in play", lambda: all_in_play(model, config), floor.logs)
        yield floor
    finally:
        beater.done.set()
        beater.join(timeout=10)
        projector.stop()
        worker.stop()
        model.close()
    fold = read_events(bootstrap, names)
    assert fold.meters == floor.meters_before
    assert not [i for i in fold.accepted_ids if i.startswith("hb-")]


def test_silence_and_a_dead_worker_turn_progressives_not_in_play_on_the_kafka_engine(
    tmp_path: Path,
) -> None:
    with kafka_floor(tmp_path) as floor:
        model, config, logs = floor.model, floor.config, floor.logs
        _silence_two_tables(model, config, floor.beater, floor.metrics_port, logs)
        _kill_the_worker(model, config, floor.worker, logs)
        _restart_the_projector(model, config, floor.projector, logs)
        assert topic_config(floor.bootstrap, floor.names.liveness) >= {
            ("cleanup.policy", "compact"),
            ("message.timestamp.type", "LogAppendTime"),  # the broker's clock, not the worker's
        }


def _silence_two_tables(
    model: RedisReadModel,
    config: FloorConfig,
    beater: Beater,
    port: int,
    logs: Callable[[], str],
) -> None:
    beater.alive -= {"tcp-7", "tcp-8"}
    five = "tcp-progressive-5"
    gone = {"status": "unplayable", "unplayable_at": ["tcp-7", "tcp-8"]}
    took = wait_for(f"{five} not in play", lambda: board_meters(model, config)[five] == gone, logs)
    assert took >= LIMIT_S - 1.5  # not before the limit (less the beat interval)
    meters = board_meters(model, config)
    assert all(meters[m] == {"status": "in_play", "unplayable_at": []} for m in meters if m != five)
    scraped = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    assert f'jackpot_progressive_unplayable{{meter="{five}",table="tcp-7"}} 1.0' in scraped
    assert 'jackpot_progressive_unplayable{meter="tcp-progressive",table="tcp-1"} 0.0' in scraped
    assert f'jackpot_meter_unplayable_tables{{meter="{five}"}} 2.0' in scraped
    beater.alive.add("tcp-7")
    back = {"status": "in_play", "unplayable_at": ["tcp-8"]}
    wait_for("tcp-7 heard again", lambda: board_meters(model, config)[five] == back, logs)
    beater.alive.add("tcp-8")
    wait_for("every meter in play again", lambda: all_in_play(model, config), logs)


def _kill_the_worker(
    model: RedisReadModel, config: FloorConfig, worker: Worker, logs: Callable[[], str]
) -> None:
    worker.kill()  # the controller is down; the tables keep beating into the topic
    took = wait_for(
        "nothing in play while the worker is down", lambda: none_in_play(model, config), logs
    )
    assert took >= LIMIT_S - 1.5
    worker.start()
    wait_for("in play after the worker's restart", lambda: all_in_play(model, config), logs)


def _restart_the_projector(
    model: RedisReadModel, config: FloorConfig, projector: Projector, logs: Callable[[], str]
) -> None:
    """Killed, its board goes stale (every sign NOT IN PLAY); restarted, its first board already
    has every meter in play: it read who spoke lately before writing anything."""
    projector.kill()
    wait_for("a stale board while the projector is down", lambda: none_in_play(model, config), logs)
    stale_as_of = model.read_playability()["as_of"]
    projector.start()
    wait_for(
        "the restarted projector's first board",
        lambda: model.read_playability().get("as_of") != stale_as_of,
        logs,
        poll=0.02,
    )
    assert all_in_play(model, config), model.read_playability()


@contextmanager
def kafka_pages(tmp_path: Path, floor: Floor, tokens: Path) -> Iterator[str]:
    """``jackpot kafka pages`` over the floor's Redis on a free port; its base URL."""
    port, output = free_port(), tmp_path / "pages.log"
    command = [
        sys.executable,
        "-m",
        "streams.http.kafka_pages",
        "--config",
        str(tmp_path / "floor.toml"),
    ]
    command += ["--redis", require_redis(), "--redis-prefix", floor.names.prefix]
    command += ["--tokens", str(tokens), "--port", str(port)]
    with output.open("wb") as sink:
        process = subprocess.Popen(command, cwd=REPO, stdout=sink, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for("the pages answer", lambda: _answers(f"{base}/healthz"), output.read_text)
        yield base
    finally:
        stop_process(process)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_the_kafka_engine_pages_show_not_in_play_and_the_alerts(tmp_path: Path) -> None:
    executable = require_chromium()
    tokens = tmp_path / "tokens.json"
    reader = add_token(tokens, "lobby-sign", "read_only")
    with (
        kafka_floor(tmp_path) as floor,
        kafka_pages(tmp_path, floor, tokens) as base,
        chromium(executable, tmp_path / "profile") as browser,
    ):
        browser.open(f"{base}/signage?token={reader}&meters=tcp-progressive,tcp-progressive-5")
        five, one = sign("tcp-progressive-5", "amount"), sign("tcp-progressive", "amount")
        browser.wait_for(f"{five}.startsWith('$')")
        amount = browser.evaluate(five)
        floor.beater.alive -= {"tcp-8"}
        browser.wait_for(f"{sign('tcp-progressive-5', 'down')} === 'NOT IN PLAY AT TCP-8'")
        assert browser.evaluate(five) == amount
        floor.beater.alive -= {"tcp-7"}
        browser.wait_for(f"{five} === {NOT_IN_PLAY!r}")
        assert browser.evaluate(one).startswith("$")  # its tables keep beating
        floor.beater.alive |= {"tcp-7", "tcp-8"}
        browser.wait_for(f"{five} === {amount!r}")
        browser.open(f"{base}/surveillance?token={reader}")
        browser.wait_for("document.getElementById('alerts').innerText.includes('table heard')")
        alerts = table_text(browser, "alerts")
        for shown in ("table silent", "tcp-7", "tcp-8", "table feed silent for"):
            assert shown in alerts, (shown, alerts)
        # the read side's rolling aggregates on the same page (issue 13)
        the_board_is_on_the_page(
            tmp_path, floor.bootstrap, floor.names, browser, base=base, token=reader
        )
