"""Input records as the processors see them, from faust or read directly, and the gap check.

faust-streaming can leave records out: with agent concurrency above 1 it can commit past records
no agent processed, and in our runs it also skipped records it had fetched (after a restart at
the committed offset, and just after a long batch) without delivering them to the agent. Each
processor therefore stores, per source partition, the next offset it expects (a reserved key in
its state table, written after the batch's state, never lowered). A record beyond that offset
reveals a gap: the missing records are read from Kafka directly and processed first, so a skipped
record is repaired instead of lost (metric ``jackpot_gap_records_total``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from confluent_kafka import Message

from streams.adapters.kafka.read import as_bytes
from streams.scaleout.records import SourcePos


@dataclass(frozen=True, slots=True)
class Incoming:
    """One input record: key, value and where it sits."""

    key: bytes | None
    value: bytes
    pos: SourcePos


def from_faust(event: Any) -> Incoming:
    """An input record from a faust event (raw bytes key and value)."""
    message = event.message
    timestamp_ms = round(message.timestamp * 1000)
    pos = SourcePos(message.topic, message.partition, message.offset, timestamp_ms)
    return Incoming(message.key, as_bytes(message.value), pos)


def from_confluent(message: Message) -> Incoming:
    """An input record read with confluent-kafka (for gap repair)."""
    _, timestamp_ms = message.timestamp()
    key = message.key()
    pos = SourcePos(
        message.topic() or "", message.partition() or 0, message.offset() or 0, timestamp_ms
    )
    return Incoming(None if key is None else as_bytes(key), as_bytes(message.value()), pos)


def progress_key(partition: int) -> bytes:
    """The reserved state key holding the next expected offset of ``partition`` (a NUL byte
    first: no table or meter id can start with one)."""
    return b"\x00next:%d" % partition


def is_reserved(key: bytes | str) -> bool:
    """Whether a state key is a reserved one (not a table or meter)."""
    return key[:1] in (b"\x00", "\x00")


@dataclass(frozen=True, slots=True)
class Gap:
    """Records of ``partition`` from ``start`` up to (not including) ``stop`` never arrived."""

    topic: str
    partition: int
    start: int
    stop: int


def find_gaps(records: list[Incoming], expected: dict[int, int | None]) -> list[tuple[int, Gap]]:
    """(index in ``records``, gap before it) for each jump past the expected offset.

    ``expected`` maps a partition to its next expected offset (None: unknown, trust the first
    record); it is raised to the offset after each record seen, never lowered.
    """
    gaps: list[tuple[int, Gap]] = []
    for index, record in enumerate(records):
        pos = record.pos
        want = expected.get(pos.partition)
        if want is not None and pos.offset > want:
            gaps.append((index, Gap(pos.topic, pos.partition, want, pos.offset)))
        expected[pos.partition] = max(want or 0, pos.offset + 1)
    return gaps
