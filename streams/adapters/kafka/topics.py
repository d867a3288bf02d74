"""The scale-out engine's topics, provisioned on purpose with confluent-kafka's AdminClient.

Every name starts with a prefix (one deployment, or one test, per prefix). Partition counts,
retention and compaction are chosen here, not left to broker defaults (``auto.create.topics`` would
make one partition with the broker's 7-day retention):

==========================  ===============  ===========  ==========================================
topic                       key              retention    why
==========================  ===============  ===========  ==========================================
``<p>.table-events``        table_id         infinite     the raw input as received: the audit
                                                          record; ordered per table (one writer
                                                          per table: the round processor)
``<p>.meter-claims``        meter_id         30 days      what the tables owe the meters; ordered
                                                          per meter, which IS the meter's order;
                                                          re-derivable from table-events
``<p>.events``              table or meter   infinite     the controller's derived log (accepted
                                                          table events, meter events, fixed and
                                                          envy awards, rejections)
``<p>.awards``              table_id         infinite     every award (progressive, fixed, envy)
                                                          for the cage and the floor
``<p>.dead-letter``         table_id         infinite     refused input: the raw record, the
                                                          reason and where it came from
``<p>.liveness``            table_id         compacted    when the round processor last heard each
                                                          table (`streams.scaleout.liveness`); the
                                                          broker's clock stamps each record
``<p>-controller-state-     ``r/`` table,    compacted    both processors' state (one record per
changelog``                 ``m/`` meter                  table and per meter, a progress mark per
                                                          lane and partition); deployments of
                                                          before keep ``-rounds-changelog`` and
                                                          ``-meters-changelog`` instead
``<p>.readside-alerts``     table_id         30 days      the read side's contribution-rate alerts
``<p>-readside-aggregates-  window key       compacted    the read side's aggregates (faust table
changelog``                                               ``aggregates``; `readside_specs`)
==========================  ===============  ===========  ==========================================

A changelog partition holds the state of the source partition of the same number, so the state
changelog has as many partitions as the larger source topic (`state_partitions`), and the two
changelogs of before exactly as many as their source topic. Never change a partition count after
records were written: a key would move to another partition and lose its order and its state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

# confluent_kafka.admin does not re-export NewTopic for type checkers; cimpl defines it.
from confluent_kafka.cimpl import NewTopic

from controller.model.errors import AdapterError, StoreUnavailable
from streams.adapters.kafka.security import client_settings

INFINITE = "-1"
THIRTY_DAYS_MS = str(30 * 24 * 3600 * 1000)


@dataclass(frozen=True, slots=True)
class TopicNames:
    """The names of one deployment's topics, all under ``prefix``."""

    prefix: str

    @property
    def table_events(self) -> str:
        return f"{self.prefix}.table-events"

    @property
    def meter_claims(self) -> str:
        return f"{self.prefix}.meter-claims"

    @property
    def events(self) -> str:
        return f"{self.prefix}.events"

    @property
    def awards(self) -> str:
        return f"{self.prefix}.awards"

    @property
    def dead_letter(self) -> str:
        return f"{self.prefix}.dead-letter"

    @property
    def liveness(self) -> str:
        return f"{self.prefix}.liveness"

    @property
    def app_id(self) -> str:
        """The faust app id, which is also the consumer group id."""
        return f"{self.prefix}-controller"

    def changelog(self, table: str) -> str:
        """faust's name for a table's changelog topic (the worker's two of before: ``rounds``
        and ``meters``, kept by deployments provisioned with them)."""
        return f"{self.app_id}-{table}-changelog"

    @property
    def state_changelog(self) -> str:
        """The worker's one changelog, both lanes' state (`streams.scaleout.store.changelogs`)."""
        return self.changelog("state")

    @property
    def readside_id(self) -> str:
        """The read side's faust app id (``jackpot kafka readside``): its group, and the prefix
        of its changelog."""
        return f"{self.prefix}-readside"

    @property
    def readside_alerts(self) -> str:
        return f"{self.prefix}.readside-alerts"

    def readside_changelog(self, app_id: str = "") -> str:
        """faust's name for the read side's aggregates table's changelog."""
        return f"{app_id or self.readside_id}-aggregates-changelog"


@dataclass(frozen=True, slots=True)
class TopicSpec:
    """One topic as it must exist."""

    name: str
    partitions: int
    config: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Layout:
    """How many partitions each keyed stream gets, and the replication factor."""

    table_partitions: int = 6
    meter_partitions: int = 6
    other_partitions: int = 6
    replication: int = 1


def _audit(replication: int) -> dict[str, str]:
    """Append-only and kept forever: ``retention.ms`` and ``retention.bytes`` both -1."""
    return {
        "cleanup.policy": "delete",
        "retention.ms": INFINITE,
        "retention.bytes": INFINITE,
        "min.insync.replicas": str(min(2, replication)),
    }


def _compacted(replication: int) -> dict[str, str]:
    """A state store's changelog: the last value per key is the state."""
    return {"cleanup.policy": "compact", "min.insync.replicas": str(min(2, replication))}


def _liveness(replication: int) -> dict[str, str]:
    """The last sign of life per table: compacted, stamped by the broker when the round processor
    wrote it (one clock for every watcher, not the devices'), and rolled every ten minutes so
    compaction keeps it about one record per table however often tables beat."""
    return {
        **_compacted(replication),
        "message.timestamp.type": "LogAppendTime",
        "segment.ms": str(10 * 60 * 1000),
    }


def topic_specs(names: TopicNames, layout: Layout) -> tuple[TopicSpec, ...]:
    """Every topic of a deployment with its partitions and settings (module docstring)."""
    audit, compact = _audit(layout.replication), _compacted(layout.replication)
    claims = {**audit, "retention.ms": THIRTY_DAYS_MS}
    return (
        TopicSpec(names.table_events, layout.table_partitions, audit),
        TopicSpec(names.meter_claims, layout.meter_partitions, claims),
        TopicSpec(names.events, layout.other_partitions, audit),
        TopicSpec(names.awards, layout.other_partitions, audit),
        TopicSpec(names.dead_letter, layout.other_partitions, audit),
        TopicSpec(names.liveness, layout.table_partitions, _liveness(layout.replication)),
        TopicSpec(names.state_changelog, state_partitions(layout), compact),
    )


def state_partitions(layout: Layout) -> int:
    """The shared changelog's partitions: one per partition of either source topic (the state of
    table-events ``p`` and meter-claims ``p`` both live in partition ``p``)."""
    return max(layout.table_partitions, layout.meter_partitions)


def legacy_changelogs(names: TopicNames, layout: Layout) -> tuple[TopicSpec, ...]:
    """The worker's two changelogs of before (the rounds and the meters lane): a deployment that
    has them keeps them (`streams.scaleout.store.changelogs`); provisioned only for a worker
    of that time (the bench's baseline)."""
    compact = _compacted(layout.replication)
    return (
        TopicSpec(names.changelog("rounds"), layout.table_partitions, compact),
        TopicSpec(names.changelog("meters"), layout.meter_partitions, compact),
    )


def readside_specs(
    names: TopicNames, partitions: int, replication: int = 1, app_id: str = ""
) -> tuple[TopicSpec, ...]:
    """The read side's own topics: its alerts (one partition, 30 days) and its aggregates
    changelog (compacted, as many partitions as ``<p>.events``, which feeds it). Provisioned
    with the deployment, so the read side's user needs no right to create topics."""
    alerts = {"retention.ms": THIRTY_DAYS_MS, "min.insync.replicas": str(min(2, replication))}
    return (
        TopicSpec(names.readside_alerts, 1, alerts),
        TopicSpec(names.readside_changelog(app_id), partitions, _compacted(replication)),
    )


def admin_client(bootstrap: str) -> AdminClient:
    """An AdminClient that logs nothing on its own (errors come back as exceptions)."""
    return AdminClient({"bootstrap.servers": bootstrap, **client_settings(), "log_level": 0})


def provision(
    bootstrap: str, specs: Sequence[TopicSpec], replication: int = 1, timeout: float = 30.0
) -> list[str]:
    """Create the topics that are missing; the names created. Idempotent.

    A topic that exists with another partition count is an error (see the module docstring):
    raise rather than run with keys in the wrong place.
    """
    admin = admin_client(bootstrap)
    existing = partition_counts(bootstrap, [s.name for s in specs], timeout)
    for spec in specs:
        have = existing.get(spec.name)
        if have is not None and have != spec.partitions:
            msg = (
                f"topic {spec.name} has {have} partitions, not {spec.partitions}: use another "
                "prefix, or delete the topic if it holds nothing worth keeping"
            )
            raise AdapterError(msg)
    missing = [s for s in specs if s.name not in existing]
    if not missing:
        return []
    new = [NewTopic(s.name, s.partitions, replication, config=dict(s.config)) for s in missing]
    futures = admin.create_topics(new, operation_timeout=timeout, request_timeout=timeout)
    for name, future in futures.items():
        try:
            future.result()
        except KafkaException as exc:
            if exc.args[0].name() != "TOPIC_ALREADY_EXISTS":  # a concurrent provision won
                msg = f"cannot create topic {name}: {exc}"
                raise StoreUnavailable(msg) from exc
    return [s.name for s in missing]


def partition_counts(
    bootstrap: str, topics: Sequence[str], timeout: float = 30.0
) -> dict[str, int]:
    """The partition count of each of ``topics`` that exists."""
    admin = admin_client(bootstrap)
    try:
        metadata = admin.list_topics(timeout=timeout)
    except KafkaException as exc:
        msg = f"Kafka at {bootstrap} did not answer: {exc}"
        raise StoreUnavailable(msg) from exc
    return {
        name: len(metadata.topics[name].partitions)
        for name in topics
        if name in metadata.topics and metadata.topics[name].error is None
    }
