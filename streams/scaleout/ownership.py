"""Which source partitions a worker owns, and their state: the cooperative-sticky rebalance
callbacks of `streams.scaleout.txloop`.

**Assigned.** Before a partition is consumed its state is restored from the lane's changelog
(`streams.scaleout.store.restore`, ``read_committed``) and checked against the group's committed
offset, which is fetched first: with ``read_committed`` librdkafka asks for *stable* offsets, so
the fetch waits while a previous owner's transaction that carries offsets for it is still open
(committed or aborted by the coordinator). The progress mark in the changelog is written in the
same transaction as that offset, so the two must agree; if the changelog is behind (its
transaction marker can land a moment after the offset's) the restore is read again, for up to
`AGREE_TIMEOUT_S`. The partition is then consumed from its progress mark: the state and the
position always match. Should they disagree for good (offsets moved by an operator, or expired),
the mark wins and the worker says so: records after it are processed again and re-emit their
outputs under the same dedupe ids (`streams.scaleout.records`), which readers fold once.

**Migrated.** A batch the group coordinator refused because the group moved to a new generation
while it was in flight (`streams.adapters.kafka.transactions.migration`) is aborted and the loop
goes on with the same consumer and producer (`recover`): the aborted batch's partitions still
owned are taken again as on assignment (committed offset, changelog, agreement), and every owned
partition is consumed again from the progress its state reflects.

**Revoked / lost.** The loop's open transaction, if any, is aborted first (`TxLoop.abandon`), then
the partitions' state is dropped; the new owner restores it from the changelog. An assignment
settles the loop's transaction the same way before it fetches the committed offsets. An
assignment delivered while the consumer closes (a worker leaving, or rebuilding after a fenced
batch, in the middle of a rebalance) is not restored: in that callback the committed-offset
fetch timed out again and again (30 s each), the worker stuck and its partitions with it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, TopicPartition

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.read import reader
from streams.adapters.kafka.transactions import TRANSACTION_TIMEOUT_MS
from streams.scaleout.store import Lane, PartitionState, restore

LOG = logging.getLogger("jackpot.kafka.worker")
COMMITTED_TIMEOUT_S = 30.0
COMMITTED_TRIES = 4
#: How long a restore behind its committed offset is read again. Longer than a transaction may
#: stay open (`TRANSACTION_TIMEOUT_MS`, then its coordinator aborts it): with both lanes' state
#: in one changelog, another worker's transaction open on the same partition (a stalled zombie's
#: of the other lane) holds a ``read_committed`` restore below records committed after it began,
#: until it ends.
AGREE_TIMEOUT_S = TRANSACTION_TIMEOUT_MS / 1000 + 2.0
Where = tuple[str, int]


def described(partitions: Iterable[TopicPartition]) -> str:
    """``topic[0, 2, 5]`` per topic, for the log."""
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return " ".join(f"{t}{sorted(ps)}" for t, ps in sorted(by_topic.items()))


def listed(partitions: Iterable[Where]) -> str:
    """`described` for (topic, partition) pairs; "no partition" for none."""
    return described(TopicPartition(t, p) for t, p in partitions) or "no partition"


class Ownership:
    """The owned partitions' state, kept in step with the group's assignment."""

    def __init__(
        self,
        bootstrap: str,
        consumer: Consumer,
        lanes: dict[str, Lane[Any]],
        on_revoke: Callable[[], None],
    ) -> None:
        self._bootstrap, self._consumer, self._lanes = bootstrap, consumer, lanes
        self._on_revoke = on_revoke
        self.states: dict[Where, PartitionState[Any]] = {}
        self._watermarks: Consumer | None = None  # the lag reader (`lag`)
        #: set before the consumer is closed: its close may still deliver an assignment, which
        #: is then not restored (its committed-offset fetch hung there for minutes)
        self.closing = False

    def subscribe(self) -> None:
        """Join the group on every lane's source topic."""
        self._consumer.subscribe(
            list(self._lanes), on_assign=self._assigned, on_revoke=self._revoked, on_lost=self._lost
        )

    def _assigned(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        if not partitions:
            return
        if self.closing:
            LOG.info("assigned %s while closing: left to the next owner", described(partitions))
            return
        LOG.info("assigned %s", described(partitions))
        # The committed offsets are fetched stable: an open transaction carrying offsets of the
        # group (this worker's own, its commit failed on the rebalance's new generation) would
        # hold the fetch, and it is aborted only when this callback returns (seen: 60 s+).
        self._on_revoke()
        started = time.monotonic()
        positions = self._take(partitions)
        consumer.incremental_assign(positions)
        keys = sum(len(self.states[(tp.topic, tp.partition)].records) for tp in positions)
        took = time.monotonic() - started
        LOG.info("ready %s: %d key(s) restored in %.2fs", described(positions), keys, took)

    def _take(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        committed = self._committed(partitions)
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        positions = []
        for topic, parts in by_topic.items():
            states = self._restore_agreeing(self._lanes[topic], parts, committed)
            for part, state in states.items():
                self.states[(topic, part)] = state
                start = self._start((topic, part), state, committed.get((topic, part)))
                positions.append(TopicPartition(topic, part, start))
        return positions

    def _committed(self, partitions: list[TopicPartition]) -> dict[Where, int]:
        """The group's committed offsets (stable: a pending transactional commit is waited for)."""
        asked = [TopicPartition(tp.topic, tp.partition) for tp in partitions]
        for attempt in range(COMMITTED_TRIES):
            try:
                got = self._consumer.committed(asked, timeout=COMMITTED_TIMEOUT_S)
                return {(tp.topic, tp.partition): tp.offset for tp in got if tp.offset >= 0}
            except KafkaException as exc:
                if attempt == COMMITTED_TRIES - 1:
                    msg = f"committed offsets of {described(asked)} not readable: {exc}"
                    raise StoreUnavailable(msg) from exc
                LOG.warning("committed offsets not readable yet (%s); retrying", exc)
        raise AssertionError  # pragma: no cover - the loop returns or raises

    def _restore_agreeing(
        self, lane: Lane[Any], parts: list[int], committed: dict[Where, int]
    ) -> dict[int, PartitionState[Any]]:
        """The partitions' state, read again while a changelog is behind its committed offset
        (for at most `AGREE_TIMEOUT_S`)."""
        states = restore(self._bootstrap, lane, parts)
        deadline = time.monotonic() + AGREE_TIMEOUT_S
        while time.monotonic() < deadline:
            behind = [p for p, s in states.items() if _behind(s, committed.get((lane.source, p)))]
            if not behind:
                break
            time.sleep(0.2)
            states.update(restore(self._bootstrap, lane, behind))
        return states

    def _start(self, where: Where, state: PartitionState[Any], committed: int | None) -> int:
        """Where to consume from: the progress mark (see the module docstring)."""
        if state.progress is not None:
            if committed is not None and committed != state.progress:
                LOG.warning(
                    "%s[%d]: committed offset %d but the state reflects %d: resuming at %d",
                    *where,
                    committed,
                    state.progress,
                    state.progress,
                )
            return state.progress
        if committed is not None:
            LOG.warning(
                "%s[%d]: committed offset %d but no state progress: processing from the start",
                *where,
                committed,
            )
        return self._beginning(where, state)

    def _beginning(self, where: Where, state: PartitionState[Any]) -> int:
        """The partition's first offset, which its state then reflects (nothing before it): a
        partition never processed has a progress to commit from its first batch on, which a
        claim applied locally needs (`streams.scaleout.local_apply`); `OFFSET_BEGINNING` (and
        no progress) if the broker does not say."""
        try:
            low, _ = self._consumer.get_watermark_offsets(
                TopicPartition(*where), timeout=COMMITTED_TIMEOUT_S
            )
        except KafkaException as exc:
            LOG.warning("%s[%d]: first offset not readable (%s)", *where, exc)
            return OFFSET_BEGINNING
        state.progress = low
        return int(low)

    def recover(self, touched: Iterable[Where]) -> list[Where]:
        """After an aborted batch (migrated, see the module docstring): the state of its
        partitions still owned read again from the changelogs (committed batches only; the
        in-memory state took the aborted batch's records) and every owned partition sought back
        to the progress its state reflects (the consumer is past the aborted batch's records and
        those of the batch decided meanwhile); the partitions taken again."""
        again = sorted({where for where in touched if where in self.states})
        taken = self._take([TopicPartition(t, p) for t, p in again]) if again else []
        positions = {(tp.topic, tp.partition): tp.offset for tp in taken}
        try:
            for where, state in self.states.items():
                start = state.progress if state.progress is not None else OFFSET_BEGINNING
                self._consumer.seek(TopicPartition(*where, positions.get(where, start)))
        except KafkaException as exc:  # the caller rebuilds: nothing of the batch committed
            raise StoreUnavailable(f"seek after a migrated batch: {exc}") from exc
        return again

    def moved(self) -> dict[Where, int]:
        """Per owned partition whose consumer position moved past its state's progress with no
        record behind it (transaction markers, the partition read to its end): that position.
        An idle loop commits them (`streams.scaleout.txloop.TxLoop`), so the group's lag reads 0
        when the worker is caught up."""
        owned = [TopicPartition(t, p) for t, p in self.states]
        moved = {}
        for tp in self._consumer.position(owned) if owned else []:
            state = self.states.get((tp.topic, tp.partition))
            if state is not None and tp.offset > (state.progress or 0):
                moved[(tp.topic, tp.partition)] = tp.offset
        return moved

    def lag(self) -> list[tuple[str, int, int]]:
        """(topic, partition, records after the committed progress) per owned partition; read
        by the metrics server's thread at scrape time, with a reader of its own: a call on the
        loop's consumer would wait for its ``consume`` (and a stalled loop still has lag)."""
        if self._watermarks is None:
            self._watermarks = reader(self._bootstrap)
        rows = []
        for (topic, part), state in list(self.states.items()):
            try:
                _, high = self._watermarks.get_watermark_offsets(
                    TopicPartition(topic, part), timeout=2.0
                )
            except KafkaException:
                continue
            rows.append((topic, part, max(0, high - (state.progress or 0))))
        return rows

    def assigned(self) -> list[tuple[str, int]]:
        """(source topic, partitions of it owned) for every lane; read at scrape time (a copy of
        the keys: the loop's thread changes the dict in its rebalance callbacks)."""
        owned = [topic for topic, _ in list(self.states)]
        return [(topic, owned.count(topic)) for topic in self._lanes]

    def close(self) -> None:
        """Before the consumer is closed: its close may still deliver an assignment, which is
        then not restored (`closing`); and the lag reader is closed."""
        self.closing = True
        if self._watermarks is not None:
            self._watermarks.close()
            self._watermarks = None

    def _revoked(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._drop(partitions)
        if partitions:
            LOG.info("revoked %s", described(partitions))

    def _lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._drop(partitions)
        if partitions:
            LOG.warning(
                "lost %s (session timed out; a newer owner may have them)", described(partitions)
            )

    def _drop(self, partitions: list[TopicPartition]) -> None:
        self._on_revoke()  # no transaction stays open across a revoke
        for tp in partitions:
            self.states.pop((tp.topic, tp.partition), None)


def _behind(state: PartitionState[Any], committed: int | None) -> bool:
    return committed is not None and (state.progress is None or state.progress < committed)
