"""Moving a deployment from the two changelogs of before to the shared one (`store.changelogs`).

Why a tool: the workers, ``dump`` and ``reconcile`` use the two old changelogs
(``<p>-controller-rounds-changelog``, ``-meters-changelog``) for as long as either exists, so
upgrading never strands state. Deleting them by hand would make the workers restore from the empty
shared changelog and, their committed offsets having no state behind them, process every
partition again from its beginning. So the move is, with every worker stopped:

1. copy each old changelog's last record per key into the same partition of the shared one, the
   keys behind the lane's tag and each progress mark renamed (``\\x00next:<p>`` becomes
   ``\\x00next:r/<p>`` or ``\\x00next:m/<p>``), all in **one transaction**: a reader sees the
   whole copy or none of it;
2. read the shared changelog back ``read_committed`` and require that each lane restores from it
   exactly the records and marks it restores from its old changelog;
3. only then, and only when asked (``--delete-old``), delete the two old topics, after checking
   again that no worker joined meanwhile.

Every step can be run again: a copy rewrites the same keys with the same values, and a run
after the deletion finds nothing to move.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from confluent_kafka import KafkaException, Message, Producer

from controller.model.errors import AdapterError, StoreUnavailable
from streams.adapters.kafka.read import as_bytes, read_topic
from streams.adapters.kafka.security import client_settings
from streams.adapters.kafka.topics import TopicNames, admin_client, partition_counts
from streams.scaleout.store import METER_TAG, ROUND_TAG, is_reserved, progress_key

TIMEOUT_S = 60.0
#: A progress mark (`store.progress_key`): its lane's tag (none in a changelog of its own), its
#: partition.
_MARK = re.compile(rb"\x00next:((?:r/|m/)?)(\d+)")

#: Records by (partition, key); None is a tombstone.
Latest = dict[tuple[int, bytes], bytes | None]


@dataclass(frozen=True, slots=True)
class Copied:
    """What one lane's old changelog gave the shared one."""

    source: str
    records: int
    marks: int


@dataclass(frozen=True, slots=True)
class Migration:
    """The outcome: what was copied (nothing when there were no old changelogs) and deleted."""

    copied: tuple[Copied, ...]
    deleted: tuple[str, ...]


def old_changelogs(names: TopicNames) -> dict[str, bytes]:
    """The two old changelogs, each with the tag its lane's keys carry in the shared one."""
    return {names.changelog("rounds"): ROUND_TAG, names.changelog("meters"): METER_TAG}


def retagged(key: bytes, tag: bytes) -> bytes:
    """An old changelog's key as the shared changelog holds it; AdapterError for a reserved key
    that is not a progress mark (the old layout has no other: copying it blind could make a
    lane restore something it never wrote)."""
    if not is_reserved(key):
        return tag + key
    mark = _MARK.fullmatch(key)
    if mark is None or mark[1]:
        msg = f"the old changelog holds a reserved key {key!r} that is not a progress mark"
        raise AdapterError(msg)
    return progress_key(int(mark[2]), tag)


def latest_records(messages: Iterable[Message]) -> Latest:
    """The last value per (partition, key) of a changelog read in offset order."""
    latest: Latest = {}
    for message in messages:
        value = message.value()
        latest[(message.partition() or 0, as_bytes(message.key()))] = (
            None if value is None else as_bytes(value)
        )
    return latest


def copy_of(old: Latest, tag: bytes) -> Latest:
    """The shared changelog's records for one lane's old ones (tombstones kept as tombstones)."""
    return {(partition, retagged(key, tag)): value for (partition, key), value in old.items()}


def restored(records: Latest, tag: bytes) -> dict[tuple[int, bytes], bytes]:
    """What the lane whose keys carry ``tag`` restores from shared-layout ``records``: its own
    keys and marks, tombstones dropped (`store.untagged`, `Lane.mark`)."""
    return {
        (partition, key): value
        for (partition, key), value in records.items()
        if value is not None and _owns(key, tag)
    }


def _owns(key: bytes, tag: bytes) -> bool:
    """Whether a shared-layout key is the lane's (tagged, or the lane's progress mark)."""
    if not is_reserved(key):
        return key.startswith(tag)
    mark = _MARK.fullmatch(key)
    return mark is not None and mark[1] == tag


def migrate(bootstrap: str, names: TopicNames, *, delete_old: bool) -> Migration:
    """Steps 1-3 of the module docstring; AdapterError (nothing deleted) when a worker runs, the
    shared changelog is missing or too small, or the read-back differs."""
    counts = partition_counts(bootstrap, [*old_changelogs(names), names.state_changelog])
    olds = {topic: tag for topic, tag in old_changelogs(names).items() if topic in counts}
    if not olds:
        return Migration((), ())
    refuse_running_workers(bootstrap, names)
    _check_shared(names, counts, olds)
    wanted: Latest = {}
    copied: list[Copied] = []
    for topic, tag in olds.items():
        lane = copy_of(latest_records(read_topic(bootstrap, topic, TIMEOUT_S)), tag)
        marks = sum(1 for _, key in lane if is_reserved(key))
        copied.append(Copied(topic, len(lane) - marks, marks))
        wanted.update(lane)
    write_in_one_transaction(bootstrap, names, wanted)
    _verify(bootstrap, names, olds.values(), wanted)
    if not delete_old:
        return Migration(tuple(copied), ())
    refuse_running_workers(bootstrap, names)
    delete_topics(bootstrap, list(olds))
    return Migration(tuple(copied), tuple(olds))


def _check_shared(names: TopicNames, counts: Mapping[str, int], olds: Iterable[str]) -> None:
    shared = counts.get(names.state_changelog)
    if shared is None:
        msg = (
            f"{names.state_changelog} does not exist: run `jackpot kafka provision` for this "
            "prefix first (it adds the shared changelog and changes nothing else)"
        )
        raise AdapterError(msg)
    for topic in olds:
        if counts[topic] > shared:
            msg = f"{topic} has {counts[topic]} partitions, {names.state_changelog} only {shared}"
            raise AdapterError(msg)


def refuse_running_workers(bootstrap: str, names: TopicNames) -> None:
    """AdapterError if the workers' consumer group has members: a worker running while the state
    moves could write to the old changelogs after the copy."""
    group, admin = names.app_id, admin_client(bootstrap)  # alive until its futures are done
    try:
        future = admin.describe_consumer_groups([group], request_timeout=TIMEOUT_S)[group]
        members = len(future.result().members)
    except KafkaException as exc:
        if exc.args[0].name() == "GROUP_ID_NOT_FOUND":
            return
        msg = f"cannot describe consumer group {group}: {exc}"
        raise StoreUnavailable(msg) from exc
    if members:
        msg = f"{members} worker(s) are members of consumer group {group}: stop every worker first"
        raise AdapterError(msg)


def write_in_one_transaction(bootstrap: str, names: TopicNames, records: Latest) -> None:
    """Produce ``records`` to the shared changelog in one transaction (its own transactional
    id, inside the worker role's ``<p>-controller-*``); StoreUnavailable, nothing visible, if
    any of it fails."""
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            **client_settings(),
            "transactional.id": f"{names.app_id}-migrate",
            "enable.idempotence": True,
            "acks": "all",
            "log_level": 3,
        }
    )
    try:
        producer.init_transactions(TIMEOUT_S)
        producer.begin_transaction()
        for (partition, key), value in records.items():
            producer.produce(names.state_changelog, value, key, partition)
            producer.poll(0)
        producer.commit_transaction(TIMEOUT_S)  # flushes first; fails if any record failed
    except (KafkaException, BufferError) as exc:
        msg = f"copying into {names.state_changelog} failed, nothing of it visible: {exc}"
        raise StoreUnavailable(msg) from exc


def _verify(bootstrap: str, names: TopicNames, tags: Iterable[bytes], wanted: Latest) -> None:
    shared = latest_records(read_topic(bootstrap, names.state_changelog, TIMEOUT_S))
    for tag in tags:
        if restored(shared, tag) != restored(wanted, tag):
            msg = (
                f"{names.state_changelog} read back does not restore the {tag.decode()!r} lane "
                "as its old changelog does (records of an earlier run?): old changelogs kept"
            )
            raise AdapterError(msg)


def delete_topics(bootstrap: str, topics: list[str]) -> None:
    """Delete ``topics``; StoreUnavailable if the broker refuses."""
    admin = admin_client(bootstrap)  # alive until its futures are done
    futures = admin.delete_topics(topics, operation_timeout=TIMEOUT_S, request_timeout=TIMEOUT_S)
    for topic, future in futures.items():
        try:
            future.result()
        except KafkaException as exc:
            msg = f"cannot delete {topic}: {exc}"
            raise StoreUnavailable(msg) from exc
