"""The zombie: a worker stalled past its session timeout while events flow is fenced.

Two workers (slots ``a`` and ``b``) share one deployment whose table events sit on ONE partition
(so `jackpot replay` is the exact reference). `PAUSES` times, the worker that owns that partition
is ``SIGSTOP``ped for longer than its session timeout (6 s) while a feeder keeps producing: half
of the tries with a trickle, half right after a burst, so the stop lands mid-batch. The other
worker takes the partitions over (restoring their state from the changelogs), then the stalled
one is ``SIGCONT``ed. Whatever it had in hand (records consumed, outputs produced, a transaction
open) must come to nothing: its transaction fails (it logs ``fenced``) and is aborted. At least
`FENCED_AT_LEAST` pauses must end in a fencing (one idle in ``consume`` has nothing to fence).

Afterwards, read ``read_committed`` as every downstream reader does: meters, awards and
rejections equal the replay to the cent; every input line accepted exactly once or refused; no
record twice on the events topic (so nothing of a zombie's shows). The events topic read
``read_uncommitted`` is counted too: what it holds beyond the committed records was written by a
zombie and aborted (reported; a stop between two transactions leaves nothing to abort). The
issue's reproduction lost $115,132 of awards this way on the faust worker. ~4 minutes.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from streams.adapters.kafka.read import partitions_of
from streams.scaleout.dump import read_events
from streams.scaleout.ingest import TableEventProducer
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import (
    Worker,
    assert_matches_replay,
    check_log,
    deploy,
    simulate,
    wait_caught_up,
)

pytestmark = pytest.mark.integration

PAUSES = 10  # the "at least 10 pauses of 5-45 s in one run"
PAUSE_S = (8.0, 12.0)  # past the 6 s session timeout; some past the 10 s transaction timeout
#: The last pause: a zombie stalled far past both timeouts (the issue's range reaches 45 s).
LONG_PAUSE_S = (30.0, 45.0)
#: Rounds of input: enough that events still flow at the last pause (five bursts and ~40 lines a
#: second through ~4 minutes of pauses: ~23,000 lines).
ROUNDS = 120
BURST, TRICKLE_PER_S = 3_000, 40
SETTLE_S = 20.0
#: A stalled worker with nothing in hand when it stopped (idle in ``consume``) has nothing to
#: fence: it only learns it lost its partitions. Mid-batch pauses often fence (4 of 4 in one
#: measurement, 2 of 4 in each of two CI runs), trickle ones seldom; at least one fencing in the
#: run shows the path works, and what a zombie wrote never shows either way (checked below).
FENCED_AT_LEAST = 1


class Feeder(threading.Thread):
    """Produces the input in order: a trickle by default, bursts on request."""

    def __init__(self, bootstrap: str, prefix: Any, lines: list[bytes]) -> None:
        super().__init__(daemon=True)
        self.producer = TableEventProducer(bootstrap, prefix, "zombie-feeder")
        self.lines, self.sent, self.error = lines, 0, None
        self.burst = threading.Event()
        self.burst_started = threading.Event()
        self.rest = threading.Event()

    def _send(self, count: int) -> None:
        for line in self.lines[self.sent : self.sent + count]:
            self.producer.send(line)
        self.sent = min(len(self.lines), self.sent + count)
        self.producer.flush(timeout=60)

    def run(self) -> None:
        try:
            while self.sent < len(self.lines):
                if self.rest.is_set():
                    self._send(len(self.lines))
                elif self.burst.is_set():
                    self.burst_started.set()
                    self._send(BURST)
                    self.burst.clear()
                else:
                    self._send(max(1, TRICKLE_PER_S // 10))
                    time.sleep(0.1)
        except BaseException as exc:  # reported by the test thread
            self.error = exc  # type: ignore[assignment]


def owner(bootstrap: str, group: str, topic: str) -> str | None:
    """The client id of the member the group assigned ``topic``[0], if any."""
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    try:
        (future,) = admin.describe_consumer_groups([group], request_timeout=10).values()
        description = future.result()
    except KafkaException:
        return None
    for member in description.members:
        for tp in member.assignment.topic_partitions:
            if tp.topic == topic and tp.partition == 0:
                return str(member.client_id)
    return None


def uncommitted_count(bootstrap: str, topic: str) -> int:
    """Data records of ``topic`` as a ``read_uncommitted`` reader sees them (aborted included)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"jackpot-reader-{uuid.uuid4()}",
            "isolation.level": "read_uncommitted",
            "enable.partition.eof": True,
            "enable.auto.commit": False,
            "log_level": 3,
        }
    )
    try:
        parts = partitions_of(consumer, topic, 10)
        consumer.assign([TopicPartition(topic, p, 0) for p in parts])
        open_parts, count = set(parts), 0
        deadline = time.monotonic() + 60
        while open_parts and time.monotonic() < deadline:
            for message in consumer.consume(1000, 0.2):
                if message.error() is None:
                    count += 1
                else:
                    open_parts.discard(message.partition())
        return count
    finally:
        consumer.close()


def test_a_stalled_worker_is_fenced_and_nothing_of_it_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap = require_kafka()
    events = simulate(tmp_path, rounds=ROUNDS, seed=1313)
    lines = [line for line in events.read_bytes().splitlines() if line.strip()]
    names = deploy(bootstrap, table_partitions=1)
    workers = {slot: Worker(bootstrap, names, _folder(tmp_path, slot)) for slot in "ab"}
    for slot, worker in workers.items():
        worker.start(slot=slot)
    feeder = Feeder(bootstrap, names, lines)
    rng = random.Random(int(os.environ.get("ZOMBIE_SEED") or 7))
    outcomes: list[str] = []
    try:
        feeder.start()
        outcomes.extend(_pause_the_owner(workers, feeder, rng, pause) for pause in range(PAUSES))
        assert feeder.sent < len(lines), "the input ran out before the last pause: raise ROUNDS"
        feeder.rest.set()
        feeder.join(timeout=120)
        assert feeder.error is None, feeder.error
        for worker in workers.values():
            wait_caught_up(worker, timeout=180)
    finally:
        for worker in workers.values():
            worker.stop()
    fold = read_events(bootstrap, names)
    assert fold.duplicates == 0  # a zombie's records never reached a read_committed reader
    check_log(bootstrap, names, fold, events)
    assert_matches_replay(fold, events)
    # Whatever a zombie wrote before its fencing is on the topic but aborted: a read_uncommitted
    # reader counts it, the read_committed fold above does not. How much there is depends on
    # where the stop landed (a stop between two transactions leaves nothing in flight: one CI
    # run saw 325 aborted records, another none), so the count is reported, not required.
    written = uncommitted_count(bootstrap, names.events)
    assert written >= fold.records
    logs = "\n".join(w.logs(None) for w in workers.values())
    fenced_pauses = sum(o.endswith("fenced") for o in outcomes)
    assert fenced_pauses >= FENCED_AT_LEAST, (outcomes, logs[-6000:])
    with capsys.disabled():
        print(
            f"\nkafka zombie: {PAUSES} pauses ({', '.join(outcomes)}); {len(lines)} lines, "
            f"{fold.records} records committed on the events topic, {written - fold.records} "
            f"written and aborted; {logs.count('fenced:')} fenced transaction(s) logged"
        )


def _folder(tmp_path: Path, slot: str) -> Path:
    folder = tmp_path / slot
    folder.mkdir()
    return folder


def _pause_the_owner(
    workers: dict[str, Worker], feeder: Feeder, rng: random.Random, pause: int
) -> str:
    """One stall of the table partition's owner: ``mid-batch`` or ``trickle``, then ``fenced``
    if it logged its fencing (else ``lost``)."""
    any_worker = workers["a"]
    victim = _await_owner(any_worker.bootstrap, any_worker.names, workers)
    worker = workers[victim]
    logged = len(worker.logs(None))
    kind = "mid-batch" if pause % 2 else "trickle"
    if kind == "mid-batch":  # stopped while the burst arrives and it chews on it
        feeder.burst_started.clear()
        feeder.burst.set()
        feeder.burst_started.wait(timeout=30)
        time.sleep(rng.uniform(0.1, 0.4))
    assert worker.process is not None
    worker.process.send_signal(signal.SIGSTOP)
    time.sleep(rng.uniform(*(LONG_PAUSE_S if pause == PAUSES - 1 else PAUSE_S)))
    worker.process.send_signal(signal.SIGCONT)
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:  # it learns it lost its partitions (and was fenced)
        news = worker.logs(None)[logged:]
        if "lost " in news or "fenced:" in news:
            time.sleep(1.0)
            fenced = "fenced:" in worker.logs(None)[logged:]
            return f"{kind} {victim} {'fenced' if fenced else 'lost'}"
        time.sleep(0.2)
    return f"{kind} {victim} silent"


def _await_owner(bootstrap: str, names: Any, workers: dict[str, Worker]) -> str:
    """The slot owning table-events[0], once the group has settled (dead workers restarted)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for slot, worker in workers.items():
            if not worker.alive():
                worker.start(slot=slot)
        client = owner(bootstrap, names.app_id, names.table_events)
        for slot in workers:
            if client == f"{names.app_id}-{slot}":
                return slot
        time.sleep(0.5)
    pytest.fail("no worker owns the table partition")
