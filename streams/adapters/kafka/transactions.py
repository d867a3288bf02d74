"""The money path's Kafka clients: a transactional producer and a ``read_committed`` group
consumer whose offsets travel inside the producer's transactions (KIP-98, KIP-447).

- The producer has a ``transactional.id`` of its own per worker process; KIP-447 fences by the
  consumer group's generation, not by the id, so ids need not follow partitions. A producer that
  is rebuilt after a fatal error keeps the id: ``init_transactions`` then aborts whatever its
  predecessor left open at once instead of after ``transaction.timeout.ms``.
- ``transaction.timeout.ms`` bounds how long an abandoned transaction (a killed or stopped worker)
  holds back ``read_committed`` readers of the partitions it wrote: the coordinator aborts it then.
- The consumer reads ``read_committed``, never commits by itself, and rebalances
  cooperative-sticky (only the partitions that move are revoked).

`migration` and `fencing` tell the two ways the broker refuses a batch apart (Kafka Streams'
TaskMigratedException against a fenced producer): a refusal because the consumer group moved
to a new generation while the batch was in flight (`MIGRATION_CODES`, abortable, not fatal) leaves
the producer usable once the transaction is aborted; a fenced producer epoch, a fatal error or a
transaction the coordinator aborted does not (`FENCING_CODES`, the worker rebuilds).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from streams.adapters.kafka.security import client_settings
from streams.adapters.kafka.sink import producer_config

LOG = logging.getLogger("jackpot.kafka.worker")
TRANSACTION_TIMEOUT_MS = 10_000
#: librdkafka waits ``retry.backoff.ms`` (default 100) before asking again when the coordinator
#: answers CONCURRENT_TRANSACTIONS, which it does to the next transaction's first request
#: (``send_offsets_to_transaction``) while the previous commit's markers are still being written:
#: with the default every back-to-back transaction paid a fixed ~100 ms. The backoff grows
#: exponentially from here (to ``retry.backoff.max.ms``) when the broker is really away.
RETRY_BACKOFF_MS = 5
#: ... and grows exponentially only up to here (librdkafka's default is 1000). The coordinator
#: keeps answering CONCURRENT_TRANSACTIONS until the previous transaction's markers are
#: written, which on a loaded host takes tens to hundreds of ms: with the default ceiling the
#: retries drift 5, 10, 20, ... 640, 1000 ms apart, so ``send_offsets_to_transaction`` can return
#: up to a second after the markers are done, every batch behind it waiting (0.5-2.5 s seen in
#: the latency bench's worst runs; with this ceiling the longest was 0.6 s, bench/PROPOSALS.md
#: "Kafka latency"). librdkafka asks again for the partitions (AddPartitionsToTxn) every 20 ms
#: in that case: the same here.
RETRY_BACKOFF_MAX_MS = 20
#: A batch's records are produced all at once and its commit follows at once (it flushes them):
#: lingering for more could only delay the commit.
LINGER_MS = 0
COMMIT_TRIES = 3
B = TypeVar("B")
FENCING_CODES = frozenset(
    {
        KafkaError._FENCED,
        KafkaError.PRODUCER_FENCED,
        KafkaError.INVALID_PRODUCER_EPOCH,
        KafkaError.INVALID_PRODUCER_ID_MAPPING,
        KafkaError.ILLEGAL_GENERATION,
        KafkaError.UNKNOWN_MEMBER_ID,
        KafkaError.FENCED_INSTANCE_ID,
    }
)
#: The group coordinator refused the transaction's offsets because the group moved to a new
#: generation (a rebalance among live members): librdkafka makes them abortable
#: (``txn_requires_abort``), never fatal. Two refusals stay fencings: UNKNOWN_MEMBER_ID (the
#: coordinator dropped this member, its session expired: a zombie whose partitions are someone
#: else's; going on, its consumer not yet aware, it had 4 batches in a row refused in the zombie
#: test) and FENCED_INSTANCE_ID (static membership: another process took its instance id).
MIGRATION_CODES = frozenset({KafkaError.ILLEGAL_GENERATION, KafkaError.REBALANCE_IN_PROGRESS})
Rebalance = Callable[[Consumer, list[Any]], None]


def transactional_producer(bootstrap: str, transactional_id: str) -> Producer:
    """An idempotent producer with ``transactional.id`` (transactions initialised)."""
    producer = Producer(
        {
            **producer_config(bootstrap, transactional_id),
            "transactional.id": transactional_id,
            "transaction.timeout.ms": TRANSACTION_TIMEOUT_MS,
            "retry.backoff.ms": RETRY_BACKOFF_MS,
            "retry.backoff.max.ms": RETRY_BACKOFF_MAX_MS,
            "linger.ms": LINGER_MS,
        }
    )
    producer.init_transactions(30.0)
    return producer


def group_consumer(
    bootstrap: str,
    group: str,
    session_timeout_ms: int,
    client_id: str = "jackpot-worker",
    instance_id: str = "",
) -> Consumer:
    """A ``read_committed`` member of ``group`` that never commits by itself; ``client_id``
    names it in the group's description (``kafka-consumer-groups --describe``).

    ``instance_id`` makes it a static member (KIP-345, ``group.instance.id``): a worker
    restarted in the same supervised slot takes its predecessor's place and partitions at once,
    with no rebalance, instead of waiting out the dead member's session. Fencing is unchanged: the
    coordinator gives the newcomer a new member id, so a stalled predecessor's offsets are refused
    (FENCED_INSTANCE_ID or UNKNOWN_MEMBER_ID, `FENCING_CODES`). Empty: a dynamic member."""
    static = {"group.instance.id": instance_id} if instance_id else {}
    return Consumer(
        {
            **static,
            "bootstrap.servers": bootstrap,
            **client_settings(),
            "client.id": client_id,
            "group.id": group,
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "partition.assignment.strategy": "cooperative-sticky",
            "session.timeout.ms": session_timeout_ms,
            "heartbeat.interval.ms": max(100, session_timeout_ms // 6),
            "max.poll.interval.ms": max(60_000, 6 * TRANSACTION_TIMEOUT_MS),
            "log_level": 3,
        }
    )


def fencing(exc: BaseException) -> KafkaError | None:
    """The Kafka error of ``exc`` if it says this worker was fenced (a newer member owns its
    partitions, or a newer producer its transactional id), else None. ``_STATE`` counts: the
    loop only produces inside its own transaction, so a producer in an erroneous state is one
    whose transaction the coordinator aborted (it stalled past ``transaction.timeout.ms``)."""
    if not isinstance(exc, KafkaException) or not exc.args:
        return None
    error = exc.args[0]
    if isinstance(error, KafkaError) and error.code() in {*FENCING_CODES, KafkaError._STATE}:
        return error
    return None


def migration(exc: BaseException) -> KafkaError | None:
    """The Kafka error of ``exc`` if the batch can be undone in place: abort the transaction and
    go on with the same producer and consumer, the batch's partitions restored. Else None (a
    rebuild).

    In place: an error librdkafka makes abortable and not fatal, and that does not say another
    owner took over (`FENCING_CODES`, ``_STATE``). Mostly `MIGRATION_CODES` (the group moved on
    while the batch was in flight: Kafka Streams' TaskMigrated), but also e.g.
    OUT_OF_ORDER_SEQUENCE_NUMBER "requires epoch bump", met by the first transaction after an
    in-place recovery whose aborted batch had records in flight: the abort bumps the producer's
    epoch (KIP-360), as Kafka Streams' TaskCorrupted goes on after restoring from the changelog.
    Nothing of an aborted batch is visible to a read_committed reader either way, and a zombie's
    writes are still refused by the broker, so the choice is between two recoveries, never about
    money; five in a row rebuild (`streams.scaleout.txloop.MIGRATIONS`)."""
    if not isinstance(exc, KafkaException) or not exc.args:
        return None
    error = exc.args[0]
    if not isinstance(error, KafkaError) or error.fatal() or not error.txn_requires_abort():
        return None
    if error.code() in MIGRATION_CODES:
        return error
    return None if error.code() in {*FENCING_CODES, KafkaError._STATE} else error


def error_text(exc: BaseException) -> str:
    """One line for a client failure (the Kafka error's own words when it has one)."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        error: KafkaError = exc.args[0]
        return f"{error.name()}: {error.str()}"
    return f"{type(exc).__name__}: {exc}"


class Committer:
    """The one thread that commits a producer's transactions, one after another
    (`Committing.start`). A thread per commit cost the worker ~60 µs of its loop's CPU to start
    (it waits until the new thread runs) and ~150 µs more in the thread's own start and end, per
    batch: at 2,000 events/s, batches of ~25 events, ~8 µs an event (issue 13, branch
    ``k13-s17``). The loop never has two commits in flight (it waits for one before the next
    transaction begins), so one thread serves them in order; a commit stuck in librdkafka stays
    stuck either way (the loop gives up on it: `streams.scaleout.txloop.COMMIT_WAIT_S`)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Committing[Any] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, job: Committing[Any]) -> None:
        """Run ``job`` on the thread (started on first use) after those before it."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="jackpot-commit", daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            job.run()

    def close(self) -> None:
        """End the thread once the commits already submitted are done."""
        if self._thread is not None:
            self._jobs.put(None)
            self._thread = None


class Committing(Generic[B]):
    """A batch's offsets sent into its transaction and the transaction committed, off the loop's
    thread (librdkafka's calls block without the GIL): the worker's loop decides the next
    batch meanwhile. Retriable errors (a coordinator moving, a timeout) are retried; any other
    failure, a Kafka error or not (a bug, a client raising something else), is kept in ``error``
    for the loop (`streams.scaleout.txloop`), which aborts the batch: a commit that did not
    return is never acknowledged. Run by ``committer``'s thread (`Committer`, the loop's one);
    ``join`` and ``is_alive`` as a thread's."""

    def __init__(
        self,
        batch: B,
        offsets: list[TopicPartition],
        metadata: Any,
        producer: Producer,
        timeout: float,
        *,
        committer: Committer,
    ) -> None:
        self.batch, self._offsets, self._metadata = batch, offsets, metadata
        self._producer, self._timeout, self._committer = producer, timeout, committer
        self.error: Exception | None = None
        self.offsets_sent = self.committed = 0.0  # when each call returned (`time.time`)
        self._started = False
        self._done = threading.Event()

    def start(self) -> None:
        """Commit on the committer's thread."""
        self._started = True
        self._committer.submit(self)

    def join(self, timeout: float | None = None) -> None:
        """Wait until the commit is done, at most ``timeout`` seconds."""
        self._done.wait(timeout)

    def is_alive(self) -> bool:
        """Started and not done yet."""
        return self._started and not self._done.is_set()

    def run(self) -> None:
        try:
            _retrying(
                lambda: self._producer.send_offsets_to_transaction(
                    self._offsets, self._metadata, self._timeout
                )
            )
            self.offsets_sent = time.time()
            _retrying(lambda: self._producer.commit_transaction(self._timeout))
            self.committed = time.time()
        except Exception as exc:  # any failure: kept for the loop, which aborts the batch
            self.error = exc
        finally:
            self._done.set()


def _retrying(call: Callable[[], None]) -> None:
    """``call``, again (up to `COMMIT_TRIES` times) while it fails with a retriable error."""
    for attempt in range(COMMIT_TRIES):
        try:
            call()
            return
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if (
                attempt == COMMIT_TRIES - 1
                or not isinstance(error, KafkaError)
                or not error.retriable()
                or error.txn_requires_abort()
            ):
                raise
            LOG.warning("transaction: %s; retrying", error_text(exc))
            time.sleep(0.2 * (attempt + 1))
