"""Whether a consumer group left committed records behind: the read side's stall probe.

A caught-up partition of a transactional topic ends with a commit marker, which a
``read_committed`` consumer never delivers, so a group's committed offset stays below the high
watermark on every quiet partition and the two offsets cannot tell a stall from a quiet floor.
Reading from the committed offset as a ``read_committed`` consumer can: it is given a record only
if the group's own consumer should have been given it too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

from streams.adapters.kafka.security import client_settings

logger = logging.getLogger(__name__)


def waiting_partitions(
    bootstrap: str, group: str, topic: str, partitions: Iterable[int], timeout: float = 5.0
) -> dict[int, tuple[int, int]]:
    """The partitions with a committed record at or after ``group``'s committed offset (from the
    beginning where it has none): partition -> (committed offset, -1 for none; the first such
    record's offset). The probe joins no group (it never subscribes) and commits nothing. On a
    broker error it answers {} (no evidence of a stall) and logs why."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            **client_settings(),
            "group.id": group,  # only to read the group's committed offsets (OffsetFetch)
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "isolation.level": "read_committed",
            "log_level": 3,
        }
    )
    try:
        asked = [TopicPartition(topic, p) for p in sorted(partitions)]
        committed = consumer.committed(asked, timeout=timeout) if asked else []
        firsts = {tp.partition: (tp.offset, _first(consumer, tp, timeout)) for tp in committed}
        return {p: (max(at, -1), first) for p, (at, first) in firsts.items() if first is not None}
    except KafkaException as exc:
        logger.warning("stall probe of %s for group %s failed: %s", topic, group, exc)
        return {}
    finally:
        consumer.close()


def _first(consumer: Consumer, committed: TopicPartition, timeout: float) -> int | None:
    """The offset of the first committed record at or after ``committed.offset`` (negative:
    none committed, so from the beginning); None if there is none."""
    offset = committed.offset
    _low, high = consumer.get_watermark_offsets(committed, timeout)
    if offset >= 0 and offset >= high:
        return None
    start = offset if offset >= 0 else OFFSET_BEGINNING
    consumer.assign([TopicPartition(committed.topic, committed.partition, start)])
    try:
        for message in iter(lambda: consumer.poll(timeout), None):
            error = message.error()
            if error is None:
                return message.offset()
            if error.code() == KafkaError._PARTITION_EOF:
                return None
            raise KafkaException(error)
        return None  # nothing within the timeout: no evidence
    finally:
        consumer.unassign()
