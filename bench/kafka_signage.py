"""Row "kafka-signage": the signage projector, events-topic records into Redis, vs a plain consume
loop on the same topic in the same run.

Input: a fresh prefix whose events topic (6 partitions) holds the records the Kafka engine writes
for N simulated table events (`bench.workload`): the embedded engine's log for them, which the
Kafka engine writes record for record (`tests/integration/test_kafka_parity.py`), under the
engine's keys and ids (a meter event by its meter with id ``{meter}@{seq}``, a table event by its
table with its ``event_id``, the rest by table or "floor"). Produced once, read by every
repetition.

Subject: `streams.scaleout.signage` in this process, with its own consumer group: the consumer, the
fold and the signage feed publishing the touched meters to a real Redis after every batch (the
start-up hold is off, so every batch takes the live path), until every record is folded and
Redis holds each meter's last value. Reference: a plain confluent-kafka consumer with the
projector's settings in its own group, consuming the same records and nothing else. Both are timed
from subscribing (the group join included) to the last record, alternating which goes first.
The row is skipped (no error) when no broker (``KAFKA_BOOTSTRAP``) or no Redis (``REDIS_URL``)
answers.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from collections.abc import Sequence

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from bench import workload
from bench.common import EXAMPLE_CONFIG, Figure, Goal, Mode, Paired, Row, Settings, rate_row
from bench.kafka_parts import bootstrap_or_reason
from controller.model.events import MeterEvent
from controller.model.state import FloorState
from controller.model.table_events import TableEventBase
from streams.adapters.kafka.security import client_settings
from streams.adapters.kafka.sink import OutputSink
from streams.adapters.kafka.topics import Layout, TopicNames, provision, topic_specs
from streams.adapters.memory import MemoryLog
from streams.adapters.redis.read_model import RedisReadModel
from streams.codec import Output, decode, record_key
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import meter_fields
from streams.scaleout.signage import SignageSettings, consumer_for, open_projector, project

GOAL = Goal(text=">= 1/2 of the plain consume loop", ratio_at_least=0.5)
EVENTS: dict[Mode, int] = {"tiny": 300, "quick": 5_000, "default": 20_000, "full": 100_000}
PARTITIONS = 6
TIMEOUT_S = 300.0


def redis_or_reason() -> tuple[str | None, str]:
    """``REDIS_URL`` if a Redis answers there; else None and why the row is skipped."""
    url = os.environ.get("REDIS_URL", "")
    if not url:
        return None, "no Redis: REDIS_URL is unset (start one with scripts/redis.sh start)"
    model = RedisReadModel(url, connect_timeout=2.0)
    try:
        return (url, "") if model.ping() else (None, f"no Redis answers at {url}")
    finally:
        model.close()


def engine_records(
    names: TopicNames, raws: Sequence[dict[str, object]]
) -> tuple[list[Output], FloorState]:
    """The events-topic records for ``raws`` (as the Kafka engine keys them) and the state."""
    text, _ = workload.example_floor()
    log = MemoryLog()
    engine = EmbeddedController(log, MemoryLog())
    engine.start(text, str(EXAMPLE_CONFIG))
    engine.submit(raws)
    outputs = []
    for record in log.read():
        event = decode(record.payload)
        if isinstance(event, MeterEvent):
            dedupe = f"{event.meter_id}@{event.meter_seq}"
        elif isinstance(event, TableEventBase):
            dedupe = event.event_id
        else:
            dedupe = f"derived@{record.position}"
        outputs.append(Output(names.events, record_key(event), record.payload, dedupe))
    return outputs, engine.state


class SignageRun:
    """One prefix, filled once; the subject and the reference read it alternately."""

    def __init__(self, bootstrap: str, redis_url: str, raws: Sequence[dict[str, object]]) -> None:
        self.bootstrap, self.redis_url = bootstrap, redis_url
        self.names = TopicNames(f"bench{uuid.uuid4().hex[:10]}")
        specs = topic_specs(self.names, Layout(6, 6, PARTITIONS))
        self.topics = [self.names.events, self.names.liveness]  # what the projector reads
        provision(bootstrap, [s for s in specs if s.name in self.topics])
        outputs, self.state = engine_records(self.names, raws)
        sink = OutputSink(bootstrap, "bench-signage-fill")
        sink.produce(outputs)
        sink.close(timeout=120.0)
        self.records = len(outputs)
        self.runs = 0

    def settings(self) -> SignageSettings:
        """A new group and a new Redis prefix for each repetition."""
        self.runs += 1
        return SignageSettings(
            bootstrap=self.bootstrap,
            prefix=self.names.prefix,
            config_path=EXAMPLE_CONFIG,
            redis_url=self.redis_url,
            redis_prefix=f"{self.names.prefix}-{self.runs}",
            group=f"{self.names.prefix}-bench-{self.runs}",
            resync_every=3_600.0,
        )

    def projector(self, *, hold: bool = False) -> float:
        """Seconds for the projector to fold every record and show every meter's last value
        (``hold``: as on a restart, publishing once at the end instead of after every batch)."""
        settings = self.settings()
        started = time.perf_counter()
        running = open_projector(settings, hold=hold)
        try:
            parts, folded = running.parts, running.projector
            deadline = started + TIMEOUT_S

            def done() -> bool:
                if time.perf_counter() > deadline:
                    msg = f"the projector folded {parts.next} of {self.records} in {TIMEOUT_S}s"
                    raise RuntimeError(msg)
                return sum(parts.next.values()) >= self.records and folded.clean

            project(running, done)
            seconds = time.perf_counter() - started
            self._check(running.model)
        finally:
            running.close()
        return seconds

    def _check(self, model: RedisReadModel) -> None:
        """Redis shows the embedded engine's meters (not timed)."""
        meters = self.state.meters
        shown = model.read_all(list(meters))
        for meter_id, meter in meters.items():
            want = {**meter_fields(meter), "seq": str(meter.seq)}
            got = {k: v for k, v in shown.get(meter_id, {}).items() if k != "updated_at"}
            if got != want:
                msg = f"Redis shows {got} for {meter_id}, not {want}"
                raise RuntimeError(msg)

    def plain(self) -> float:
        """Seconds for a plain consumer to read every record."""
        consumer = consumer_for(self.settings())
        started = time.perf_counter()
        consumer.subscribe([self.names.events])
        try:
            count, deadline = 0, started + TIMEOUT_S
            while count < self.records:
                batch = consumer.consume(num_messages=2_000, timeout=0.2)
                count += sum(1 for m in batch if m.error() is None)
                if time.perf_counter() > deadline:
                    msg = f"the plain loop read {count} of {self.records} in {TIMEOUT_S}s"
                    raise RuntimeError(msg)
            return time.perf_counter() - started
        finally:
            consumer.close()

    def delete(self) -> None:
        """Drop the prefix's topics."""
        admin = AdminClient(
            {"bootstrap.servers": self.bootstrap, **client_settings(), "log_level": 0}
        )
        for future in admin.delete_topics(self.topics, operation_timeout=30).values():
            with contextlib.suppress(KafkaException):  # already gone: nothing to clean
                future.result()


def run_rows(settings: Settings) -> list[Row]:
    """The signage row; none (and a note on stderr) without a broker or Redis."""
    redis_url, reason = redis_or_reason()
    bootstrap, why = bootstrap_or_reason() if redis_url else (None, "")
    if bootstrap is None or redis_url is None:
        print(f"bench: skipped kafka-signage: {reason or why}", file=sys.stderr)
        return []
    _, config = workload.example_floor()
    raws = workload.events(config, EVENTS[settings.mode], settings.seed)
    run = SignageRun(bootstrap, redis_url, raws)
    try:
        subject, reference = [], []
        for index in range(settings.repeats):
            if index % 2 == 0:
                reference.append(run.plain())
                subject.append(run.projector())
            else:
                subject.append(run.projector())
                reference.append(run.plain())
        rebuild = run.projector(hold=True)
    finally:
        run.delete()
    extra: dict[str, Figure] = {
        "table_events": len(raws),
        "records": run.records,
        "meters": len(run.state.meters),
        "partitions": PARTITIONS,
        "rebuild_records_per_s": round(run.records / rebuild),
        "bootstrap": bootstrap,
    }
    return [
        rate_row(
            name="kafka-signage: events topic into Redis",
            count=run.records,
            times=Paired(tuple(subject), tuple(reference)),
            reference_name="plain consume loop, same topic",
            goal=GOAL,
            notes=(
                "jackpot kafka signage in-process: consume, fold the meter events, publish the "
                "touched meters to Redis after every batch (Lua seq guard), commit; vs a plain "
                "confluent-kafka consumer on the same records (group join included in both); "
                "rebuild = a restart's refold, publishing once at the end"
            ),
            extra=extra,
        )
    ]
