"""Rebalance: workers join and leave a six-partition deployment while events flow.

Worker ``a`` runs alone, then ``b`` joins, then ``c``; then ``b`` leaves cleanly (SIGTERM: it
finishes its batch and leaves the group, so its partitions move at once) and ``c`` dies
(SIGKILL: its partitions move only when its 6 s session expires, and whatever transaction it
had open is aborted by the coordinator). A feeder produces the input at a steady rate the whole
time, so every rebalance lands mid-stream. Each step waits until the group's assignment
(as the broker describes it) shows the move and the workers committed more input after it.

The rebalances are checked as they happen: every member holds partitions; cooperative-sticky
means the members already there keep most of what they held when others join or leave (never
everything revoked and dealt out again); the logs say ``assigned``/``ready`` for the joiners,
``revoked`` for what ``a`` gave up and for ``b``'s exit, and ``a`` is assigned again what the
leavers held.

Afterwards, read ``read_committed``: no record twice on the events topic, the workers' stored
meters equal a fold of it, every input line accepted exactly once or dead-lettered, no hit twice
(`check_log`). With six partitions tables interleave on a meter in another order than the file,
so (as `test_kafka_parity`'s six-partition case) every meter conserves money and the
contributions, hit counts, fixed and envy awards and rejection reasons equal `jackpot replay`.
~1 minute.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from controller.config.floor import load_floor_config
from streams.adapters.kafka.topics import TopicNames
from streams.cli.replay import replay_file
from streams.scaleout.dump import fold_document, read_events
from tests.integration.services import require_kafka
from tests.integration.test_kafka_faults import Feeder
from tests.integration.test_kafka_parity import (
    CONFIG,
    Worker,
    _order_free,
    check_log,
    comparable_reasons,
    deploy,
    simulate,
    wait_caught_up,
)

pytestmark = pytest.mark.integration

TABLE_PARTITIONS = 6
METER_PARTITIONS = 6  # `deploy`'s layout
ROUNDS = 40  # ~8,000 lines: at FEED_PER_S they last past the last rebalance
FEED_PER_S = 120
#: Input records the group must commit after each move before the next one.
PROGRESS = 150
STEP_TIMEOUT_S = 60.0
Assignment = dict[str, set[tuple[str, int]]]


def assignment(bootstrap: str, names: TopicNames) -> Assignment:
    """Slot -> the source partitions the group assigned it (as the broker describes it)."""
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    try:
        (future,) = admin.describe_consumer_groups([names.app_id], request_timeout=10).values()
        description = future.result()
    except KafkaException:
        return {}
    prefix = f"{names.app_id}-"
    return {
        str(m.client_id).removeprefix(prefix): {
            (tp.topic, tp.partition) for tp in m.assignment.topic_partitions
        }
        for m in description.members
    }


def committed_total(bootstrap: str, names: TopicNames) -> int:
    """The group's committed offsets summed over the table-events partitions."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": names.app_id, "log_level": 0})
    try:
        asked = [TopicPartition(names.table_events, p) for p in range(TABLE_PARTITIONS)]
        return sum(max(tp.offset, 0) for tp in consumer.committed(asked, timeout=10))
    except KafkaException:
        return -1
    finally:
        consumer.close()


def await_assignment(
    bootstrap: str, names: TopicNames, settled: Callable[[Assignment], bool], what: str
) -> Assignment:
    """Until the group's assignment satisfies ``settled`` and covers every source partition
    exactly once, then until the group committed `PROGRESS` more input records."""
    deadline = time.monotonic() + STEP_TIMEOUT_S
    every = TABLE_PARTITIONS + METER_PARTITIONS
    while True:
        now = assignment(bootstrap, names)
        held = [tp for tps in now.values() for tp in tps]
        if settled(now) and len(held) == len(set(held)) == every:
            break
        if time.monotonic() > deadline:
            pytest.fail(f"no rebalance to {what} within {STEP_TIMEOUT_S}s: {now}")
        time.sleep(0.25)
    start = committed_total(bootstrap, names)
    while committed_total(bootstrap, names) < start + PROGRESS:
        if time.monotonic() > deadline:
            pytest.fail(f"no progress after the rebalance to {what}: {now}")
        time.sleep(0.25)
    return now


def test_workers_join_and_leave_mid_stream_and_every_input_counts_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap = require_kafka()
    started = time.monotonic()
    events, names, workers, feeder = staged(
        tmp_path, bootstrap, "abc", rounds=ROUNDS, seed=6262, per_s=FEED_PER_S
    )
    steps: list[Assignment] = []
    try:
        workers["a"].start(slot="a")
        feeder.start()
        steps.append(await_assignment(bootstrap, names, _holders("a"), "a alone"))
        workers["b"].start(slot="b")
        steps.append(await_assignment(bootstrap, names, _holders("a", "b"), "a and b"))
        workers["c"].start(slot="c")
        steps.append(await_assignment(bootstrap, names, _holders("a", "b", "c"), "a, b and c"))
        _signal(workers["b"], signal.SIGTERM)
        steps.append(await_assignment(bootstrap, names, _holders("a", "c"), "a and c"))
        _signal(workers["c"], signal.SIGKILL)
        steps.append(await_assignment(bootstrap, names, _holders("a"), "a alone again"))
        mid_stream = feeder.sent < len(feeder.lines)
        feeder.join(timeout=180)
        assert feeder.error is None, feeder.error
        wait_caught_up(workers["a"], timeout=180)
    finally:
        for worker in workers.values():
            worker.stop()
    assert mid_stream, "the input ran out before the last rebalance: raise ROUNDS"
    _check_result(bootstrap, names, events)
    _check_rebalances(workers, steps)
    with capsys.disabled():
        sizes = " -> ".join(
            "/".join(f"{slot}:{len(tps)}" for slot, tps in sorted(step.items())) for step in steps
        )
        print(
            f"\nkafka rebalance: partitions held {sizes}; {len(feeder.lines)} lines; "
            f"{time.monotonic() - started:.0f}s; {_recoveries(workers)}"
        )


def staged(
    tmp_path: Path, bootstrap: str, slots: str, *, rounds: int, seed: int, per_s: float
) -> tuple[Path, TopicNames, dict[str, Worker], Feeder]:
    """A simulated floor's events, a deployment, a worker per slot (not started) and a feeder
    of the events at ``per_s`` lines a second (not started)."""
    events = simulate(tmp_path, rounds=rounds, seed=seed)
    names = deploy(bootstrap, table_partitions=TABLE_PARTITIONS)
    workers = {slot: Worker(bootstrap, names, _folder(tmp_path, slot)) for slot in slots}
    return events, names, workers, Feeder(bootstrap, names, events, per_s=per_s)


def _recoveries(workers: dict[str, Worker]) -> str:
    """How each worker got over its failed batches: ``fenced:`` and other failures rebuild the
    worker (a new consumer: one more rebalance for the others), ``migrated:`` and ``aborted in
    place:`` do not."""
    logs = "\n".join(w.logs(None) for w in workers.values())
    words = ("fenced:", "transaction failed:", "migrated:", "aborted in place:", "rejoining")
    return ", ".join(f"{word} {logs.count(word)}" for word in words)


def _folder(tmp_path: Path, slot: str) -> Path:
    folder = tmp_path / slot
    folder.mkdir()
    return folder


def _holders(*slots: str) -> Callable[[Assignment], bool]:
    """Exactly these members, each holding at least one partition."""
    return lambda now: set(now) == set(slots) and all(now[slot] for slot in slots)


def _signal(worker: Worker, signum: int) -> None:
    assert worker.process is not None
    worker.process.send_signal(signum)
    worker.process.wait(timeout=30)


def _check_rebalances(workers: dict[str, Worker], steps: list[Assignment]) -> None:
    """What the broker's assignments and the workers' own logs say about each move."""
    alone, pair, trio, after_term, after_kill = steps
    # cooperative-sticky: a joiner takes partitions from those already there, who keep most
    # of theirs (an eager reassignment would deal every partition out afresh)
    assert pair["a"] < alone["a"]
    for before, now in ((pair, trio), (trio, after_term)):
        for slot in set(before) & set(now):
            assert len(now[slot] & before[slot]) * 2 >= len(now[slot]), (slot, before, now)
    assert after_kill["a"] == alone["a"]
    logs = {slot: w.logs(None) for slot, w in workers.items()}
    for slot in "bc":
        assert "assigned " in logs[slot], logs[slot][-3000:]
        assert "ready " in logs[slot], logs[slot][-3000:]
    assert "stopping (signal 15)" in logs["b"], logs["b"][-3000:]
    assert "revoked " in logs["b"], logs["b"][-3000:]
    codes = {slot: w.process.returncode for slot, w in workers.items() if w.process is not None}
    assert codes["b"] == 0
    assert codes["c"] == -signal.SIGKILL
    # `a` gave partitions up when b and c joined, and took the leavers' over: 1 + 2 assignments
    assert logs["a"].count("revoked ") >= 1, logs["a"][-3000:]
    assert logs["a"].count("ready ") >= 3, logs["a"][-3000:]


def _check_result(bootstrap: str, names: TopicNames, events: Path) -> None:
    fold = read_events(bootstrap, names)
    assert fold.duplicates == 0  # no record twice to a read_committed reader
    check_log(bootstrap, names, fold, events)
    for meter in fold.meters.values():
        assert meter.explained_sub() == meter.held_sub()
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    document: dict[str, Any] = fold_document(config, fold.meters, fold)
    reference: dict[str, Any] = replay_file(CONFIG, events)
    for mine, theirs in zip(document["meters"], reference["meters"], strict=True):
        assert (mine["meter_id"], mine["contributed"], mine["hits"]) == (
            theirs["meter_id"],
            theirs["contributed"],
            theirs["hits"],
        )
    assert _order_free(document["awards"]) == _order_free(reference["awards"])
    assert comparable_reasons(document["rejected"]) == comparable_reasons(reference["rejected"])
