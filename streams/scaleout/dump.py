"""Reading the scale-out engine's results back: a fold of the events topic, the workers' stored
meter state, and consumer lag.

The events topic may hold a record more than once (a redelivered input re-emits identical records);
`fold_events` keeps the first record of each ``dedupe_id`` and reports any id seen with a
*different* payload (that would mean a step is not deterministic: a bug). Meter events are folded
per meter in ``meter_seq`` order, which must run 1, 2, 3... without a gap.

The document `fold_document` prints has the shape of ``jackpot replay`` (``meters``, ``awards``,
``rejected``). Awards are sorted (by table, round, seat, wager...) because the two processors
write them to different partitions; within one table the log order is kept by the processors, not
by this listing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from confluent_kafka import Consumer, KafkaException, TopicPartition
from immutables import Map

from controller.config.floor import FloorConfig
from controller.meter import evolve_meter
from controller.model.errors import StoreUnavailable
from controller.model.events import (
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    MeterEvent,
    MysteryArmed,
    MysteryRevealed,
    ProgressiveHit,
)
from controller.model.state import FloorState, MeterState
from controller.model.table_events import TableEventBase
from controller.model.views import View, awards_view, meters_view
from controller.mystery import evolve_mystery
from streams.adapters.kafka.read import as_bytes, header, partitions_of, read_topic, text
from streams.adapters.kafka.security import client_settings
from streams.adapters.kafka.topics import TopicNames, partition_counts
from streams.codec import DEDUPE_HEADER, decode
from streams.scaleout.meters import meter_record_from_bytes
from streams.scaleout.store import changelog_topics, changelogs, untagged


@dataclass
class Fold:
    """The events topic, de-duplicated and folded."""

    meters: dict[str, MeterState] = field(default_factory=dict)
    awards: list[Event] = field(default_factory=list)
    rejected: list[EventRejected] = field(default_factory=list)
    accepted_ids: list[str] = field(default_factory=list)
    meter_events: dict[str, list[MeterEvent]] = field(default_factory=dict)
    #: A mystery level's armings and reveals (no meter_seq of their own), each with the meter_seq
    #: it follows: a meter's events share one partition, in its single writer's order.
    mystery: dict[str, list[tuple[int, MysteryArmed | MysteryRevealed]]] = field(
        default_factory=dict
    )
    records: int = 0
    duplicates: int = 0
    problems: list[str] = field(default_factory=list)


def fold_events(records: Iterable[tuple[str, bytes]]) -> Fold:
    """Fold ``(dedupe_id, payload)`` pairs (see the module docstring)."""
    fold = Fold()
    seen: dict[str, bytes] = {}
    for dedupe_id, payload in records:
        fold.records += 1
        digest = hashlib.blake2b(payload, digest_size=16).digest()
        prior = seen.get(dedupe_id)
        if prior is not None:
            fold.duplicates += 1
            if prior != digest:
                fold.problems.append(f"{dedupe_id}: the same id with a different payload")
            continue
        seen[dedupe_id] = digest
        _take(fold, decode(payload))
    for meter_id, events in fold.meter_events.items():
        events.sort(key=lambda e: e.meter_seq)
        mystery = fold.mystery.get(meter_id, [])
        fold.meters[meter_id] = _fold_meter(meter_id, events, mystery, fold.problems)
    return fold


def _take(fold: Fold, event: Event) -> None:
    if isinstance(event, TableEventBase):
        fold.accepted_ids.append(event.event_id)
    elif isinstance(event, EventRejected):
        fold.rejected.append(event)
    elif isinstance(event, FixedAwarded | EnvyAwarded):
        fold.awards.append(event)
    elif isinstance(event, MeterEvent):
        fold.meter_events.setdefault(event.meter_id, []).append(event)
        if isinstance(event, ProgressiveHit):
            fold.awards.append(event)
    elif isinstance(event, MysteryArmed | MysteryRevealed):
        before = fold.meter_events.get(event.meter_id)
        fold.mystery.setdefault(event.meter_id, []).append(
            (before[-1].meter_seq if before else 0, event)
        )


def _fold_meter(
    meter_id: str,
    events: list[MeterEvent],
    mystery: list[tuple[int, MysteryArmed | MysteryRevealed]],
    problems: list[str],
) -> MeterState:
    meter, pending = MeterState(meter_id=meter_id), iter(mystery)
    following = next(pending, None)
    for expected, event in enumerate(events, start=1):
        if event.meter_seq != expected:
            problems.append(f"{meter_id}: meter_seq {event.meter_seq} where {expected} was due")
        meter = evolve_meter(meter, event)
        while following is not None and following[0] <= event.meter_seq:
            meter = evolve_mystery(meter, following[1])
            following = next(pending, None)
    return meter


def read_events(bootstrap: str, names: TopicNames) -> Fold:
    """Fold the whole events topic as it is now."""
    return fold_events(
        (header(m, DEDUPE_HEADER), as_bytes(m.value())) for m in read_topic(bootstrap, names.events)
    )


def worker_meters(bootstrap: str, names: TopicNames) -> dict[str, MeterState]:
    """The meter state the workers stored (the last value per meter key of the changelog that
    holds the meter lane's state: `streams.scaleout.store.changelogs`)."""
    existing = partition_counts(bootstrap, changelog_topics(names))
    topic, tag = changelogs(names, existing)["meter"]
    latest: dict[str, bytes] = {}
    for message in read_topic(bootstrap, topic):
        meter_key = untagged(as_bytes(message.key()), tag)
        if meter_key is None:  # a mark, or a table's record
            continue
        key, value = text(meter_key), message.value()
        if value is None:  # a tombstone: the key was deleted
            latest.pop(key, None)
        else:
            latest[key] = as_bytes(value)
    return {key: meter_record_from_bytes(value).meter for key, value in latest.items()}


def award_sort_key(row: Mapping[str, object]) -> tuple[str, ...]:
    """A total order on award rows that does not depend on which partition wrote them."""
    names = ("table_id", "round_id", "seat", "wager", "on", "kind", "hand", "amount", "meter_id")
    return tuple(str(row[n]).rjust(6) if n == "seat" else str(row[n]) for n in names)


def fold_document(config: FloorConfig, meters: Mapping[str, MeterState], fold: Fold) -> View:
    """``{"meters", "awards", "rejected"}`` like ``jackpot replay``, plus ``stats``."""
    state = FloorState(config=config, meters=Map(meters))
    return {
        "meters": meters_view(state),
        "awards": sorted(awards_view(fold.awards), key=award_sort_key),
        "rejected": sorted(
            ({"event_id": e.event_id, "reason": e.reason} for e in fold.rejected),
            key=lambda row: row["event_id"],
        ),
        "stats": {
            "records": fold.records,
            "duplicates": fold.duplicates,
            "accepted": len(fold.accepted_ids),
            "problems": fold.problems,
        },
    }


def consumer_lag(bootstrap: str, group: str, topics: Iterable[str], timeout: float = 10.0) -> int:
    """Records on ``topics`` not yet committed by consumer group ``group`` (all partitions)."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False}
        | client_settings()
    )
    try:
        lag = 0
        for topic in topics:
            parts = [TopicPartition(topic, p) for p in partitions_of(consumer, topic, timeout)]
            for committed in consumer.committed(parts, timeout=timeout):
                low, high = consumer.get_watermark_offsets(committed, timeout=timeout)
                position = committed.offset if committed.offset >= 0 else low
                lag += max(0, high - position)
        return lag
    except KafkaException as exc:
        msg = f"cannot read the lag of group {group}: {exc}"
        raise StoreUnavailable(msg) from exc
    finally:
        consumer.close()


def dumps_document(document: View) -> str:
    """The document as indented JSON."""
    return json.dumps(document, indent=2)
