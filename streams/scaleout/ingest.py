"""Ingest for the scale-out engine: table events onto ``<p>.table-events`` with an idempotent
confluent-kafka producer.

Each input goes on the topic exactly as received (the raw bytes are the audit record, and what the
dead-letter topic keeps if the round processor refuses it), keyed by its ``table_id`` so a table's
events stay in one partition in order. Nothing is judged here; the round processor checks
everything. The idempotent producer (``enable.idempotence``, ``acks=all``) means a retry inside the
producer never duplicates or reorders a record; re-running a whole file after a crash is made
cheap by `existing_event_ids` (skip what is already on the topic), and anything that still
repeats is a duplicate to the round processor, not a second wager.

`TableEventProducer` is the piece the HTTP service reuses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import KafkaError, Message, Producer

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.read import read_values
from streams.adapters.kafka.sink import producer_config
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout.records import SourcePos, dead_letter, safe_key

#: Records above this would exceed the topic's 1 MiB ``max.message.bytes``: such a line goes
#: straight to the dead-letter topic (the validator refuses anything over 64 KiB anyway).
MAX_RECORD_BYTES = 900_000


def table_key(raw: bytes) -> str | None:
    """The ``table_id`` of a raw event if it has a readable one (the key it is produced with)."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    table_id = value.get("table_id") if isinstance(value, dict) else None
    return table_id if isinstance(table_id, str) else None


def event_id_of(raw: bytes) -> str | None:
    """The ``event_id`` of a raw event, if it has a readable one."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    event_id = value.get("event_id") if isinstance(value, dict) else None
    return event_id if isinstance(event_id, str) else None


class TableEventProducer:
    """Produce raw table events; `flush` raises StoreUnavailable if any was not acknowledged."""

    def __init__(self, bootstrap: str, names: TopicNames, client_id: str = "jackpot-ingest"):
        self._names = names
        self._producer = Producer(producer_config(bootstrap, client_id))
        self._errors: list[str] = []

    def _delivered(self, error: KafkaError | None, message: Message) -> None:
        if error is not None:
            self._errors.append(f"{message.topic()}: {error}")

    def send(self, raw: bytes, origin: str = "") -> None:
        """Queue one raw event (``origin`` names it in a dead letter, e.g. ``file:line``)."""
        if len(raw) > MAX_RECORD_BYTES:
            reason = f"line: {len(raw)} bytes is over the limit for a table event record"
            pos = SourcePos(origin or "ingest", 0, 0)
            out = dead_letter(self._names.dead_letter, "", raw, reason, pos)
            self._produce(out.topic, None, out.value)
            return
        key = table_key(raw)  # a rogue table_id is refused by the round processor's door
        self._produce(self._names.table_events, safe_key(key).encode() if key else None, raw)

    def _produce(self, topic: str, key: bytes | None, value: bytes) -> None:
        while True:
            try:
                self._producer.produce(topic, key=key, value=value, on_delivery=self._delivered)
                return
            except BufferError:  # local queue full: serve deliveries, then retry
                self._producer.poll(0.05)

    def flush(self, timeout: float = 60.0) -> None:
        """Wait until every queued event is acknowledged."""
        left = self._producer.flush(timeout)
        if left:
            msg = f"{left} table event(s) not acknowledged within {timeout}s"
            raise StoreUnavailable(msg)
        if self._errors:
            errors, self._errors = self._errors, []
            msg = f"{len(errors)} table event(s) not delivered, first: {errors[0]}"
            raise StoreUnavailable(msg)


@dataclass(frozen=True, slots=True)
class IngestSummary:
    """What an ingest run did."""

    produced: int
    skipped: int


def ingest_file(
    bootstrap: str, names: TopicNames, path: Path, *, resume: bool = True
) -> IngestSummary:
    """Produce every line of ``path``; with ``resume``, skip event ids already on the topic."""
    known = _resume_ids(bootstrap, names) if resume else set()
    producer = TableEventProducer(bootstrap, names)
    produced = skipped = 0
    with path.open("rb") as lines:
        for number, line in enumerate(lines, start=1):
            raw = line.rstrip(b"\r\n")
            if not raw.strip():
                continue
            if event_id_of(raw) in known:
                skipped += 1
                continue
            producer.send(raw, f"{path.name}:{number}")
            produced += 1
    producer.flush()
    return IngestSummary(produced, skipped)


def _resume_ids(bootstrap: str, names: TopicNames) -> set[str]:
    """`existing_event_ids` of the table-events topic, or StoreUnavailable saying what to do when
    the user may only write it (the ``device`` role of `streams.adapters.kafka.acls`)."""
    try:
        return existing_event_ids(bootstrap, names.table_events)
    except StoreUnavailable as exc:
        if "AUTHORIZATION_FAILED" not in str(exc):
            raise
        msg = (
            f"{exc}; resuming reads {names.table_events}, which this user may not: run with "
            "--no-resume, or as a user with the reader role too (jackpot kafka grant)"
        )
        raise StoreUnavailable(msg) from exc


def existing_event_ids(bootstrap: str, topic: str, timeout: float = 60.0) -> set[str]:
    """The event ids already on ``topic`` (reads it to its current end)."""
    return {eid for raw in read_values(bootstrap, topic, timeout) if (eid := event_id_of(raw))}
