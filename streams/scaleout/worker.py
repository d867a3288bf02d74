"""The scale-out worker: the round processor (by table) and the meter processor (by meter) as
one transactional consume -> decide -> produce loop on confluent-kafka (`streams.scaleout.txloop`).

Run it as ``jackpot kafka worker`` or ``python -m streams.scaleout.worker`` (same options) under a
supervisor that restarts it (systemd ``Restart=always``, a Kubernetes Deployment). Any number of
workers share one prefix; the consumer group ``<prefix>-controller`` spreads the partitions of
both source topics (cooperative-sticky) and each partition's state moves with it through its
compacted changelog.

Exactly-once by the broker's transactions (KIP-98 with KIP-447's group metadata, what Kafka
Streams' ``exactly_once_v2`` does): a batch's outputs, state records and consumed offsets
commit together or not at all. A batch refused only because a rebalance moved the group to a new
generation is aborted and recovered in place by the loop (``migrated``: same consumer, so no
further rebalance for the other members). A fenced or otherwise failed transaction aborts its
batch; the worker then drops its consumer, producer and state and rejoins, restoring from the
changelogs (`RETRIES` times in a row at most, then it exits 70 for its supervisor). An
invariant violation (a bug) ends the process at once. SIGTERM or SIGINT: the batch in progress is
finished, the group left, and the process exits within seconds.

The worker logs ``assigned``, ``ready`` (state restored), ``revoked``, ``lost``, ``migrated`` and
``fenced``.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
import uuid
from collections.abc import Sequence
from types import FrameType
from typing import Any

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import ConfigError, RuleViolation, StoreUnavailable
from streams.adapters.kafka.phases import PhaseLog
from streams.adapters.kafka.security import activate, check_access
from streams.adapters.kafka.settings import (
    KILL_AFTER_OUTPUTS_ENV,
    WorkerSettings,
    add_arguments,
    settings_from,
)
from streams.adapters.kafka.topics import TopicNames, partition_counts
from streams.adapters.kafka.transactions import group_consumer, transactional_producer
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.embedded.mystery import load_key
from streams.process import settled_gc
from streams.scaleout.grow import walker
from streams.scaleout.local_apply import LocalApply
from streams.scaleout.meters import MeterProcessor, meter_record_from_bytes, meter_record_to_bytes
from streams.scaleout.open_rounds import OpenRoundProcessor
from streams.scaleout.rounds import table_record_from_bytes, table_record_to_bytes
from streams.scaleout.side import SideWriter
from streams.scaleout.store import Lane, changelog_topics, changelogs
from streams.scaleout.tx_failures import Fenced
from streams.scaleout.txloop import TxLoop

LOG = logging.getLogger("jackpot.kafka.worker")
RETRIES = 5
EXIT_FAILED = 70
EXIT_CONFIG = 78  # EX_CONFIG: restarting cannot help


def lanes(settings: WorkerSettings) -> tuple[list[Lane[Any]], LocalApply]:
    """The round and the meter lane of the floor configuration (topics must be provisioned),
    and the meter lane's logic for the claims the round lane applies itself
    (`streams.scaleout.local_apply`). Their changelogs: the shared one, or the two of before if
    the deployment has them (`streams.scaleout.store.changelogs`)."""
    names = TopicNames(settings.prefix)
    config = load_floor_config(settings.config_path.read_text("utf-8"), str(settings.config_path))
    sources = [names.table_events, names.meter_claims, names.liveness]
    counts = partition_counts(settings.bootstrap, sources + changelog_topics(names))
    where = changelogs(names, counts)
    needed = sources + sorted({topic for topic, _ in where.values()})
    if any(topic not in counts for topic in needed):
        msg = f"topics of prefix {settings.prefix!r} are missing: run `jackpot kafka provision`"
        raise SystemExit(f"jackpot kafka worker: {msg}")
    for lane, source in (("round", names.table_events), ("meter", names.meter_claims)):
        if counts[where[lane][0]] < counts[source]:  # a source partition without its state's
            msg = f"{where[lane][0]} has fewer partitions than {source}"
            raise SystemExit(f"jackpot kafka worker: {msg}")
    meters = MeterProcessor(config, names, _mystery_key(settings, config))
    rounds = OpenRoundProcessor(config, names)
    round_lane: Lane[Any] = Lane(
        "round",
        names.table_events,
        where["round"][0],
        rounds.process_open,
        table_record_to_bytes,
        table_record_from_bytes,
        where["round"][1],
        walker(rounds),  # its wagers and decisions grown natively (`streams.scaleout.grow`)
    )
    meter_lane: Lane[Any] = Lane(
        "meter",
        names.meter_claims,
        where["meter"][0],
        meters.process,
        meter_record_to_bytes,
        meter_record_from_bytes,
        where["meter"][1],
    )
    local = LocalApply(meters, names.meter_claims, counts[names.meter_claims])
    return [round_lane, meter_lane], local


def _mystery_key(settings: WorkerSettings, config: FloorConfig) -> bytes | None:
    """The mystery sealing key (`streams.scaleout.mystery`): ``--mystery-key`` (or
    ``JACKPOT_MYSTERY_KEY_FILE``), else, for a floor with a mystery level, ``mystery.key`` in the
    worker's data directory (created 0600 on first use, like `jackpot serve`'s ``<db>.mystery-key``;
    workers on several hosts must name one shared file instead)."""
    path = settings.mystery_key
    if path is None and any(d.mystery for d in config.meters.values()):
        path = settings.data_dir / "mystery.key"
        path.parent.mkdir(parents=True, exist_ok=True)
    if path is None:
        return None
    try:
        key = load_key(path)
    except (RuleViolation, OSError) as exc:
        raise SystemExit(f"jackpot kafka worker: {exc}") from exc
    LOG.info("mystery levels sealed with the key in %s", path)
    return key


class Worker:
    """Builds loops and rebuilds them after a failed batch, until stopped."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.settings = settings
        self.lanes, self.local = lanes(settings)
        self.metrics = WorkerMetrics()
        self.stopping = False
        app_id = TopicNames(settings.prefix).app_id
        slot = settings.transactional_id or uuid.uuid4().hex[:12]
        self.transactional_id = f"{app_id}-{slot}"  # the worker role's ACLs allow <p>-controller-*
        # a supervised slot is also a static group member (`group_consumer`); a random one is not
        self.instance_id = self.transactional_id if settings.transactional_id else ""
        self._kill_after = int(os.environ.get(KILL_AFTER_OUTPUTS_ENV) or 0)
        self.progressed = False  # the last loop committed a batch
        self.phases = PhaseLog()  # per-batch timings with JACKPOT_KAFKA_PHASES (bench only)

    def stop(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler: finish the batch in progress, then leave."""
        LOG.info("stopping (signal %d)", signum)
        self.stopping = True

    def run(self) -> int:
        """Serve until stopped; the exit code."""
        failures = 0
        while not self.stopping:
            try:
                self._serve_once()
            except Fenced as exc:
                LOG.warning("%s; rejoining with state restored from the changelogs", exc)
            except StoreUnavailable as exc:
                LOG.error("%s; rejoining with state restored from the changelogs", exc)
            except ConfigError as exc:  # e.g. a mystery key that cannot open the stored seals
                LOG.error("%s; stopping (the batch in progress is aborted)", exc)
                return EXIT_CONFIG
            else:
                return 0
            # in a row: a loop that committed a batch started the count again (every rebalance
            # can fence a batch in flight on the group's old generation; five of them over a
            # worker's life are no reason to exit)
            failures = 1 if self.progressed else failures + 1
            if failures >= RETRIES:
                LOG.error("%d failed batches in a row; exiting for the supervisor", failures)
                return EXIT_FAILED
            time.sleep(min(5.0, 0.5 * failures))
        return 0

    def _serve_once(self) -> None:
        """One consumer and producer until stopped (returns) or a batch fails (raises)."""
        s = self.settings
        producer = transactional_producer(s.bootstrap, self.transactional_id)
        group = TopicNames(s.prefix).app_id
        timeout_ms = int(s.session_timeout_s * 1000)
        consumer = group_consumer(
            s.bootstrap, group, timeout_ms, self.transactional_id, self.instance_id
        )
        liveness = TopicNames(s.prefix).liveness  # at least once, outside the transactions
        side = SideWriter(s.bootstrap, f"{self.transactional_id}-side", [liveness])
        loop = TxLoop(
            s.bootstrap,
            consumer,
            producer,
            self.lanes,
            self.metrics,
            batch=s.batch,
            kill_after=self._kill_after,
            phases=self.phases,
            local=self.local,
            side=side,
        )
        self.progressed = False
        self.metrics.lag.sources[:] = [loop.lag]
        self.metrics.assigned.sources[:] = [loop.assigned]
        try:
            loop.subscribe()
            loop.run(lambda: self.stopping, s.commit_interval_s)
        finally:
            self.progressed = loop.committed > 0
            loop.abandon()
            loop.close()
            consumer.close()  # leaves the group (revokes: state dropped)
            producer.flush(5.0)
            side.close()


def run(settings: WorkerSettings) -> int:
    """Run a worker until it is stopped (SIGTERM/SIGINT); the exit code. Its security settings
    become the process's, after a check that the broker accepts them: a wrong password ends the
    worker with the reason, not in a retry loop."""
    logging.basicConfig(
        level=settings.loglevel.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        check_access(settings.bootstrap, settings.security)
    except StoreUnavailable as exc:
        raise SystemExit(f"jackpot kafka worker: {exc}") from exc
    activate(settings.security)
    try:
        worker = Worker(settings)
    except ConfigError as exc:
        raise SystemExit(f"jackpot kafka worker: {exc}") from exc
    if settings.metrics_port:
        worker.metrics.serve(settings.metrics_port, settings.metrics_host)
    signal.signal(signal.SIGTERM, worker.stop)
    signal.signal(signal.SIGINT, worker.stop)
    LOG.info("worker %s starting on %s", worker.transactional_id, settings.bootstrap)
    # the collector's young threshold raised for the serving (`streams.process`): with CPython's
    # defaults it took ~2% of the decide's CPU on `bench.kafka_local_probe`'s batches (issue 13)
    with settled_gc():
        code = worker.run()
    LOG.info("worker %s stopped", worker.transactional_id)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m streams.scaleout.worker --prefix P --config FLOOR.toml``: ``jackpot kafka
    worker`` without the rest of the CLI (the bench's "kafka" row and the integration tests run
    this entry); both go through `run`."""
    parser = argparse.ArgumentParser(prog="python -m streams.scaleout.worker", description=__doc__)
    add_arguments(parser)
    return run(settings_from(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
