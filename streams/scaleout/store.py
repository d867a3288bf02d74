"""The worker's state: per source partition, in memory, restored from its compacted changelog.

A processor ("lane") reads one source topic and keeps one record per key (a table, a meter). The
records of source partition ``p`` live in partition ``p`` of the lane's changelog, written in the
same transaction as the outputs and the consumed offsets they reflect
(`streams.scaleout.txloop`), so a ``read_committed`` read of the changelog gives exactly the
state after the last committed batch: never a half batch, never a fenced zombie's writes.

Next to the records, each changelog partition holds one reserved key per lane (`Lane.mark`, a NUL
byte first: no table or meter id starts with one) whose value is the next source offset the state
reflects. It is written in the same transaction as the consumer offsets, so after a restore the
two must agree; `streams.scaleout.txloop` checks it before it takes the partition.

**One changelog for both lanes** (`changelogs`): a deployment provisioned now has a single
compacted ``<p>-controller-state-changelog``; the state of table-events partition ``p`` and of
meter-claims partition ``p`` both live in its partition ``p``, each lane's keys behind a tag of
its own (``r/`` + table id, ``m/`` + meter id: a table and a meter of the same name never meet)
and a mark per lane. Why: a transaction's commit writes a marker to every partition it touched,
and with local apply a batch's meter records went to partitions of a second changelog
(docs/kafka.md "Speed"). A deployment that still has the two changelogs of before
(``-rounds-changelog``, ``-meters-changelog``, untagged keys, one mark ``\x00next:<p>``) keeps
them: the layout follows what exists, never the other way round, so no state is left behind.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from confluent_kafka import Consumer

from streams.adapters.kafka.read import as_bytes, read_partitions, reader
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout.records import Processed, SourcePos

R = TypeVar("R")
#: Seconds a changelog read may see no record before it gives up (the broker is away).
RESTORE_TIMEOUT_S = 60.0
#: The lanes' key tags in the shared changelog (`changelogs`).
ROUND_TAG, METER_TAG = b"r/", b"m/"


def progress_key(partition: int, tag: bytes = b"") -> bytes:
    """The reserved state key holding the next source offset of ``partition`` (of the lane whose
    keys carry ``tag``: `Lane.mark`)."""
    return b"\x00next:%s%d" % (tag, partition)


def is_reserved(key: bytes | str) -> bool:
    """Whether a state key is a reserved one (not a table or meter)."""
    return key[:1] in (b"\x00", "\x00")


def untagged(stored: bytes, tag: bytes) -> bytes | None:
    """A changelog key as the state key of the lane whose keys carry ``tag`` (b"": a changelog
    of its own); None if it is reserved (a mark) or another lane's."""
    if is_reserved(stored) or not stored.startswith(tag):
        return None
    return stored[len(tag) :]


#: ``walk(records, start, stop, topic, partition, pending, (outcomes, outputs), progress,
#: where)``: the index of the first record it did not decide (`streams.scaleout.grow`).
Walk = Callable[
    [list[Any], int, int, str, int, dict[bytes, Any], tuple[list[str], list[Any]], Any, Any], int
]


@dataclass(frozen=True, slots=True)
class Lane(Generic[R]):
    """One processor: its name (a metrics label), source topic, changelog topic, the pure step
    (`streams.scaleout.rounds`, `streams.scaleout.meters`) and its state record codec."""

    name: str
    source: str
    changelog: str
    process: Callable[[R | None, str | None, bytes, SourcePos], Processed[R]]
    to_bytes: Callable[[R], bytes]
    from_bytes: Callable[[bytes], R]
    tag: bytes = b""  # its keys' tag in a changelog shared by both lanes; b"": its own changelog
    #: the round lane's native walk of its grown inputs (`streams.scaleout.grow`), None: none
    walk: Walk | None = None

    def stored(self, key: bytes) -> bytes:
        """A state key as the changelog holds it."""
        return self.tag + key if self.tag else key

    def mark(self, partition: int) -> bytes:
        """The reserved key of the lane's progress mark for ``partition``."""
        return progress_key(partition, self.tag)

    def key_of(self, stored: bytes) -> bytes | None:
        """A changelog key as the lane's state key; None if it is another lane's or reserved."""
        return untagged(stored, self.tag)


def changelog_topics(names: TopicNames) -> list[str]:
    """Every changelog a deployment may have (the shared one, the two of before): the topics
    whose existence `changelogs` chooses by."""
    return [names.state_changelog, names.changelog("rounds"), names.changelog("meters")]


def changelogs(names: TopicNames, existing: Collection[str]) -> dict[str, tuple[str, bytes]]:
    """Per lane ("round", "meter"), its changelog topic and key tag: the two changelogs of before
    if the deployment has them (``existing``: its topics), else the shared one (module
    docstring)."""
    rounds, meters = names.changelog("rounds"), names.changelog("meters")
    if rounds in existing or meters in existing:
        return {"round": (rounds, b""), "meter": (meters, b"")}
    shared = names.state_changelog
    return {"round": (shared, ROUND_TAG), "meter": (shared, METER_TAG)}


@dataclass(slots=True)
class PartitionState(Generic[R]):
    """The records of one source partition and the next source offset they reflect (None: the
    changelog has no progress mark, the partition was never processed)."""

    records: dict[bytes, R] = field(default_factory=dict)
    progress: int | None = None

    def get(self, key: bytes | None) -> R | None:
        """The key's record; None for no key or a reserved one (a rogue record keyed like a
        progress mark must be refused by the processor, not decoded as state)."""
        if key is None or is_reserved(key):
            return None
        return self.records.get(key)


def restore(
    bootstrap: str, lane: Lane[Any], partitions: Iterable[int], timeout: float = RESTORE_TIMEOUT_S
) -> dict[int, PartitionState[Any]]:
    """The state of each of ``partitions`` read from the lane's changelog (``read_committed``,
    from the beginning to its end as of now; the last value of a key wins, a tombstone deletes)."""
    states: dict[int, PartitionState[Any]] = {p: PartitionState() for p in partitions}
    if not states:
        return states
    consumer: Consumer = reader(bootstrap)
    try:
        starts: dict[int, int | None] = dict.fromkeys(states)
        for message in read_partitions(consumer, lane.changelog, starts, timeout):
            state = states[message.partition() or 0]
            stored, value = as_bytes(message.key()), message.value()
            key = lane.key_of(stored)
            if stored == lane.mark(message.partition() or 0):
                state.progress = None if value is None else int(as_bytes(value))
            elif key is None:  # another lane's record or mark
                continue
            elif value is None:
                state.records.pop(key, None)
            else:
                state.records[key] = lane.from_bytes(as_bytes(value))
    finally:
        consumer.close()
    return states
