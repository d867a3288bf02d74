"""The signage projector's reading side: its partitions (offsets folded, ends to catch up to,
commits) and the sorting of a consume call's records (`streams.scaleout.signage`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Message, TopicPartition

from streams.adapters.kafka.read import as_bytes, header
from streams.codec import DEDUPE_HEADER
from streams.scaleout.signage_fold import Projector, Record

logger = logging.getLogger("streams.scaleout.signage")


class Partitions:
    """The consumer's view of its partitions: next offset folded, and the end to catch up to."""

    def __init__(
        self, consumer: Consumer, topic: str, projector: Projector, *, hold: bool = True
    ) -> None:
        self.consumer, self.topic, self.projector = consumer, topic, projector
        self.hold = hold
        self.next: dict[int, int] = {}
        self.ends: dict[int, int] = {}
        self.committed: dict[int, int] = {}

    def on_assign(self, consumer: Consumer, assigned: list[TopicPartition]) -> None:
        """Keep folding the partitions it had; read new ones from their beginning (holding
        publication until their end as of now); forget the ones it lost."""
        mine = {tp.partition for tp in assigned}
        lost = set(self.next) - mine
        self.projector.fold.drop_partitions(lost)
        for partition in lost:
            self.next.pop(partition, None)
            self.ends.pop(partition, None)
        for tp in assigned:
            tp.offset = self.next.get(tp.partition, OFFSET_BEGINNING)
            if tp.partition not in self.next:
                high = end_offset(consumer, tp)
                self.next[tp.partition] = 0
                if high > 0:
                    self.ends[tp.partition] = high
        self.projector.holding = self.hold and bool(self.ends)
        consumer.assign(assigned)
        logger.info("signage: assigned %s, catching up to %s", sorted(mine), self.ends)

    def on_revoke(self, consumer: Consumer, revoked: list[TopicPartition]) -> None:
        """Nothing to hand over: the fold is kept in case the partitions come back."""

    def advance(self, folded: dict[int, int]) -> None:
        """Note what was folded (partition: next offset); release the hold once every new
        partition reached its end."""
        self.next.update(folded)
        for partition, end in list(self.ends.items()):
            if self.next.get(partition, 0) >= end:
                del self.ends[partition]
        if self.projector.holding and not self.ends:
            logger.info("signage: caught up with %s; publishing every meter", self.topic)
            self.projector.release()

    def commit(self) -> None:
        """Commit what Redis reflects (only called while the projector is clean)."""
        offsets = {p: n for p, n in self.next.items() if n > 0 and self.committed.get(p) != n}
        if not offsets:
            return
        try:
            parts = [TopicPartition(self.topic, p, n) for p, n in offsets.items()]
            self.consumer.commit(offsets=parts, asynchronous=True)
        except KafkaException as exc:  # informational only: a later commit carries it
            logger.info("signage: commit failed (%s); offsets are not needed to recover", exc)
            return
        self.committed.update(offsets)


def end_offset(consumer: Consumer, tp: TopicPartition) -> int:
    """The partition's end now (0 if the broker does not say: then nothing is held back)."""
    try:
        return int(consumer.get_watermark_offsets(tp, timeout=10.0, cached=False)[1])
    except KafkaException as exc:
        logger.warning("signage: %s[%d]: no end offset (%s)", tp.topic, tp.partition, exc)
        return 0


@dataclass
class Batch:
    """One consume call: the records that may be meter events, the count of the others, and the
    next offset of each partition it read."""

    records: list[Record]
    others: int
    next: dict[int, int]


def batch_of(messages: list[Message]) -> Batch:
    """Sort a consume call's records on their raw bytes: only a record whose ``dedupe_id`` is its
    key then "@" may be a meter event, and only those are decoded (most records are table events
    and awards). Errors are logged (librdkafka retries) unless fatal."""
    batch = Batch([], 0, {})
    for message in messages:
        error = message.error()
        if error is not None:
            if error.fatal():
                raise KafkaException(error)
            logger.warning("signage: consumer: %s", error)
            continue
        partition, offset = message.partition() or 0, message.offset() or 0
        batch.next[partition] = offset + 1
        key, dedupe = as_bytes(message.key()), _dedupe_id(message)
        if dedupe.startswith(key) and dedupe[len(key) : len(key) + 1] == b"@":
            record = Record(
                partition, offset, key.decode(), dedupe.decode(), message.value() or b""
            )
            batch.records.append(record)
        else:
            batch.others += 1
    return batch


def _dedupe_id(message: Message) -> bytes:
    return header(message, DEDUPE_HEADER).encode()
