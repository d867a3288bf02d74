"""The money path's loop: consume -> decide -> produce, one Kafka transaction per batch.

Per batch (up to ``--batch`` records from any owned partition of either source topic, taken
from the first record on: `streams.scaleout.batch.take`):

1. decide every record with its lane's pure processor (`streams.scaleout.batch.decide`);
2. in ONE transaction: the outputs, each touched key's new state record and each source
   partition's progress mark on the lane's compacted changelog (partition = source partition),
   and the consumed offsets with the group's metadata (``send_offsets_to_transaction``, KIP-447);
3. commit it in a thread of its own (`streams.adapters.kafka.transactions.Committing`) while the
   next batch is consumed and decided (what comes while the commit is in flight joins that batch:
   `streams.scaleout.batch.more`); that batch's transaction begins only once this commit
   succeeded. The in-memory state takes a batch's records when its transaction is produced, so
   the next batch is decided against them: safe because a failed commit never lets the loop go
   on as it was. A batch refused only because the group moved to a new generation meanwhile
   (`Migrated`) is aborted, the batch decided meanwhile dropped, the aborted batch's partitions
   restored from their changelogs (committed batches only) and every owned partition consumed
   again from its state's progress (`Ownership.recover`); any other failure (`Fenced`: a zombie
   whose producer epoch or membership is gone; anything else) makes the worker rebuild.

So outputs, state and offsets are durable together or not at all, and ``read_committed``
readers (the meter lane itself, signage, dump, reconcile) never see an aborted batch. Rebalances
are cooperative (`streams.scaleout.ownership`); the revoke callbacks run inside ``consume``,
possibly while the previous batch commits: they wait for that commit first (`TxLoop.abandon`),
so a revoke never returns with a transaction of its partitions unfinished.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.phases import BatchPhases, PhaseLog, stamp
from streams.adapters.kafka.transactions import Committer, Committing, error_text
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.scaleout.batch import Batch, Where, decide, more, take, usable
from streams.scaleout.local_apply import LocalApply
from streams.scaleout.ownership import Ownership, listed
from streams.scaleout.records import coalesced
from streams.scaleout.side import SideWriter
from streams.scaleout.store import Lane
from streams.scaleout.tx_failures import Migrated, failure
from streams.scaleout.tx_writes import Writes

LOG = logging.getLogger("jackpot.kafka.worker")
TXN_S = 30.0
#: How long the loop waits for a batch's commit thread. librdkafka's transactional calls can
#: block past their own timeout (seen after a broker restart: ``send_offsets_to_transaction``
#: stuck for minutes, the worker frozen); a transaction not committed by then never will be (the
#: coordinator aborts it after ``transaction.timeout.ms``, 10 s), so the worker rebuilds instead.
COMMIT_WAIT_S = TXN_S
#: Migrated batches in a row (no batch committed between them) before the worker rebuilds after
#: all: a group that keeps moving under this member is better served by a fresh one.
MIGRATIONS = 5
#: How long an idle loop waits for a record before it looks at its stop flag and commits
#: positions moved past transaction markers; a record ends the wait at once.
IDLE_POLL_S = 0.1


class TxLoop:
    """One consumer, one transactional producer, the lanes' state in memory (module docstring)."""

    def __init__(
        self,
        bootstrap: str,
        consumer: Consumer,
        producer: Producer,
        lanes: Sequence[Lane[Any]],
        metrics: WorkerMetrics,
        *,
        batch: int = 500,
        kill_after: int = 0,
        phases: PhaseLog | None = None,
        local: LocalApply | None = None,
        side: SideWriter | None = None,
    ) -> None:
        self._consumer, self._producer, self._metrics = consumer, producer, metrics
        self._lanes = {lane.source: lane for lane in lanes}
        self._batch, self._kill_after, self._batches = batch, kill_after, 0
        self._phases = PhaseLog("") if phases is None else phases
        self._local = local  # claims on owned meters applied in the round lane's batch
        self._side = side  # the records written outside the transactions (liveness)
        self.in_transaction = False
        self._started = 0.0  # when the last transaction began (monotonic)
        self._committing: Committing[Batch] | None = None
        self._committer = Committer()  # the thread the commits run on
        self._writes = Writes(producer, self._lanes)  # the transactions' produce calls
        self._aborted: Committing[Batch] | None = None  # a failed commit `abandon` aborted
        self.committed = 0  # batches of records committed (a worker's failures "in a row")
        self.migrations = 0  # migrated batches in a row (`MIGRATIONS`)
        self._abort_failed = False  # the last `_abort` raised: the producer may be unusable
        self.owned = Ownership(bootstrap, consumer, self._lanes, on_revoke=self.abandon)
        self.lag, self.assigned = self.owned.lag, self.owned.assigned
        metrics.lag.sources.append(self.lag)
        metrics.assigned.sources.append(self.assigned)

    def subscribe(self) -> None:
        """Join the group on every lane's source topic."""
        self.owned.subscribe()

    def step(self, timeout: float, gather: float = 0.0) -> int:
        """Consume and decide one batch while the previous one commits, then produce it in one
        transaction and start its commit (or, idle, move the committed offsets past transaction
        markers); the records taken. ``timeout``: how long to wait for a first record;
        ``gather``: the least time from one transaction's start to the next's (`take`)."""
        phases = BatchPhases(time.time()) if self._phases.enabled else None
        messages = take(self._consumer, self._batch, timeout, self._started + gather)
        records = [m for m in messages if usable(m, self.owned.states)]
        if phases is not None:
            phases.took(records)
        batch = decide(records, self._lanes, self.owned.states, self._local) if records else None
        if batch is not None:
            batch = self._more(batch, phases)
        stamp(phases, "decided")
        try:
            self.finish()
        except Migrated as exc:  # the batch decided meanwhile is dropped too: consumed again
            self._recover(exc)
            return 0
        if batch is None:
            self._idle()
            return 0
        stamp(phases, "finished")
        batch.phases = phases
        self._transact(batch)
        stamp(phases, "produced")
        return batch.records

    def _more(self, batch: Batch, phases: BatchPhases | None) -> Batch | None:
        """``batch`` with the records that come while the previous batch still commits
        (`streams.scaleout.batch.more`); None if a rebalance meanwhile took or renewed one of
        its partitions: the batch dropped, every owned partition consumed again from its
        state's progress (`Ownership.recover`), as after a migrated batch."""
        committing = self._committing
        if committing is None:
            return batch
        lanes, states, local = self._lanes, self.owned.states, self._local
        alive, size = committing.is_alive, self._batch
        if more(
            self._consumer, alive, batch, phases, size=size, lanes=lanes, states=states, local=local
        ):
            return batch
        self.owned.recover(())
        return None

    def _recover(self, exc: Migrated) -> None:
        """Go on after a migrated batch with the same consumer and producer: its partitions'
        state read again, every owned partition consumed again from its committed progress
        (`Ownership.recover`); a rebuild after `MIGRATIONS` in a row."""
        self.migrations += 1
        if self.migrations >= MIGRATIONS:
            msg = f"{exc}; {self.migrations} migrated batches in a row"
            raise StoreUnavailable(msg) from exc
        started = time.monotonic()
        again = self.owned.recover(exc.partitions)
        took = time.monotonic() - started
        LOG.warning("%s; %s restored in %.2fs, same consumer", exc, listed(again), took)

    def _transact(self, batch: Batch) -> None:
        """Outputs, state and progress into a new transaction, the batch's records into the
        in-memory state, and the commit (offsets, then commit) started in the background.

        The state takes the records before the commit is known: the next batch is decided
        against them while this one commits (safe: see the module docstring)."""
        self._batches += 1 if batch.records else 0
        self._started = time.monotonic()
        self._writes.report = None if batch.phases is None else batch.phases.delivered
        try:
            self._producer.begin_transaction()
            self.in_transaction = True
            for outputs in batch.outputs.values():
                kept = coalesced(outputs)
                side = self._side
                self._writes.outputs(kept if side is None else side.split(kept, batch.later))
            self._writes.state(batch)
            if batch.records and self._batches == self._kill_after:  # fault injection:
                self._producer.flush(30.0)  # outputs on the broker, no commit
                os.kill(os.getpid(), signal.SIGKILL)
        except KafkaException as exc:
            self._fail(exc, batch.records)
        self._apply(batch)
        offsets = [TopicPartition(t, p, o) for (t, p), o in batch.progress.items()]
        metadata = self._consumer.consumer_group_metadata()
        self._committing = Committing(
            batch, offsets, metadata, self._producer, TXN_S, committer=self._committer
        )
        self._committing.start()
        # the GIL handed to the commit thread now, while it has a few lines of Python to run
        # before librdkafka's call releases it: else the loop's next ``poll`` came back to wait
        # for them (~0.5 ms a batch at full throughput, 0.2 with this; issue 13)
        os.sched_yield()

    def finish(self) -> None:
        """Wait for the commit in progress, if any (raises `Fenced` or StoreUnavailable if it
        failed), and count its batch."""
        committing, self._committing = self._committing, None
        if committing is None:
            return
        committing.join(COMMIT_WAIT_S)
        if committing.is_alive():  # the stuck call owns the producer: no abort, rebuild
            self.in_transaction = False
            records = committing.batch.records
            msg = f"commit still blocked after {COMMIT_WAIT_S:.0f}s; {records} record(s) aborted"
            raise StoreUnavailable(msg)
        self.in_transaction = False
        if committing.error is not None:
            # the failed transaction is still to be aborted, unless `abandon` did it
            self.in_transaction = committing is not self._aborted
            self._fail(committing.error, committing.batch.records, list(committing.batch.progress))
        batch = committing.batch
        self._committed(batch, time.monotonic() - batch.started)
        self.committed += 1 if batch.records else 0
        self.migrations = 0
        if batch.phases is not None:
            batch.phases.offsets_sent = committing.offsets_sent
            batch.phases.committed = committing.committed
            self._phases.write(batch.phases)

    def _committed(self, batch: Batch, seconds: float) -> None:
        """A batch committed (in ``seconds``, 0 when unknown): its records kept outside the
        transaction now go out, and its outcomes are counted."""
        if batch.later and self._side is not None:
            self._side.send(batch.later)
        for name, outcomes in batch.outcomes.items():
            self._metrics.record(name, outcomes, batch.outputs.get(name, []), seconds)

    def _apply(self, batch: Batch) -> None:
        for where, records in batch.states.items():
            self.owned.states[where].records.update(records)
        for where, offset in batch.progress.items():
            self.owned.states[where].progress = offset

    def _idle(self) -> None:
        """Commit positions that moved past transaction markers (`Ownership.moved`), with the
        progress marks, as ever."""
        moved = self.owned.moved()
        if moved:
            self._transact(Batch(time.monotonic(), progress=moved))

    def _fail(self, exc: Exception, records: int, touched: Sequence[Where] = ()) -> None:
        """Abort the open transaction (if the producer still can) and raise what `failure`
        makes of ``exc``: `Migrated` (go on in place), `Fenced` or StoreUnavailable (rebuild)."""
        self.abandon()
        self._metrics.stale_writes.labels("batch").inc()
        raise failure(exc, records, touched, self._abort_failed) from exc

    def abandon(self) -> None:
        """Finish the commit in progress and abort a transaction still open, if any: a revoke
        never returns with a transaction of its partitions unfinished, nor an assignment with
        one open (`Ownership._assigned`). A failed commit is aborted and logged here and raised
        by the next `finish`."""
        committing = self._committing
        if committing is not None:
            committing.join(COMMIT_WAIT_S)
            if committing.is_alive():
                LOG.warning("commit still blocked after %.0fs", COMMIT_WAIT_S)
                return  # `finish` raises it
            if committing.error is not None:  # `finish` raises it
                if committing is not self._aborted:  # abort it now: see `Ownership._assigned`
                    LOG.warning("commit failed: %s; aborting", error_text(committing.error))
                    self._aborted = committing
                    self._abort()
                return
            self._committing = None
            self.in_transaction = False
            self._committed(committing.batch, 0.0)
        self._abort()

    def _abort(self) -> None:
        if not self.in_transaction:
            return
        self.in_transaction = False
        self._abort_failed = False
        try:
            self._producer.abort_transaction(TXN_S)
        except KafkaException as exc:  # fenced or fatal: the coordinator aborts it anyway
            self._abort_failed = True
            LOG.warning("abort: %s (the coordinator aborts it on timeout)", error_text(exc))

    def close(self) -> None:
        """Close the lag reader, before the consumer is closed (the caller owns the consumer
        and the producer): an assignment its close delivers is not restored (`Ownership`);
        and end the commit thread (`Committer`)."""
        self.owned.close()
        self._committer.close()

    def run(self, stopping: Callable[[], bool], commit_interval: float = 0.0) -> None:
        """Batches until ``stopping()``; a transaction begins as soon as the input is drained
        and the previous one committed, but not sooner than ``commit_interval`` seconds after
        the previous one began (`take`). Idle, the loop looks at ``stopping()`` every
        `IDLE_POLL_S`."""
        while not stopping():
            self.step(IDLE_POLL_S, commit_interval)
        self.finish()
