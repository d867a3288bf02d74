"""Local apply (`streams.scaleout.local_apply`): a claim on a meter the worker owns applied in
the round lane's batch gives the meters, awards and events the topic gives, and no claim is lost
or applied twice whatever the ownership of the meter-claims partitions does meanwhile."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.snapshot import meter_to_dict
from streams.scaleout import local_apply, mystery
from streams.scaleout.local_apply import key_partition, murmur2
from streams.scaleout.queued import QueuedClaims
from tests.streams.scaleout.local_world import NAMES, PARTS, World
from tests.streams.scaleout.procs_harness import disturbed, fixed_draw

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
PLAIN = (EXAMPLES / "pa-three-card-poker.toml").read_text("utf-8")
DEMO = (EXAMPLES / "pa-three-card-poker-demo.toml").read_text("utf-8")  # ceiling, mystery
MYSTERY = (EXAMPLES / "pa-three-card-poker-mystery.toml").read_text("utf-8")
KEY = bytes(range(32))


def test_murmur2_is_kafkas() -> None:
    # The Java client's UtilsTest vectors (signed ints there); every key's partition was also
    # checked against librdkafka's murmur2_random on a broker (400 random keys, 6 and 7 parts).
    vectors = {
        "21": -973932308,
        "foobar": -790332482,
        "a-little-bit-long-string": -985981536,
        "a-little-bit-longer-string": -1486304829,
        "abc": 479470107,
    }
    for text, signed in vectors.items():
        assert murmur2(text.encode()) == signed & 0xFFFFFFFF
    assert key_partition(b"foobar", 6) == (-790332482 & 0x7FFFFFFF) % 6


@pytest.fixture(autouse=True)
def _fixed_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both worlds draw the same mystery triggers (the secure draw differs on every call)."""
    monkeypatch.setattr(mystery, "draw", fixed_draw)


def worlds(text: str, count: int, seed: int, *, seeded: bool = True) -> tuple[World, World]:
    """A world applying locally and one writing every claim to the topic, fed the same lines;
    ``seeded``: the provisioning seeds applied first (else the local world's first claims seed
    the meters and the seeds come after)."""
    pair = World(text, KEY), World(text, KEY, local=False)
    for world in pair:
        for table, value in disturbed(text, count, seed, 0.3):
            world.append(NAMES.table_events, table, value)
        if seeded or world is pair[1]:
            world.drain()
    return pair


def busy(world: World) -> bool:
    """Whether a table event is still to be decided."""
    return any(world.pending((NAMES.table_events, p), 1) for p in range(PARTS))


def money(world: World) -> dict[str, tuple[int, int]]:
    """Each meter's contributed total and count: what a lost or doubled claim changes."""
    return {m: (s.contributed_sub, s.contributions) for m, s in world.meters().items()}


@pytest.mark.parametrize("text", [PLAIN, DEMO, MYSTERY], ids=["plain", "demo", "mystery"])
def test_owning_every_meter_gives_the_topics_meters_and_events(text: str) -> None:
    """One worker owning everything (the bench): no claim is written, and the meters, awards
    and events equal those of each claim written and applied at once by the meter lane."""
    local, topic = worlds(text, 600, 20261202)
    while busy(local):
        topic.one_by_one(40)
        local.commit(local.table_batch(range(PARTS), 40))
    claims = sum(len(local.logs[(NAMES.meter_claims, p)]) for p in range(PARTS))
    assert claims == len(local.meters())  # the seeds only
    assert {m: meter_to_dict(s) for m, s in local.meters().items()} == {
        m: meter_to_dict(s) for m, s in topic.meters().items()
    }
    shown = [(o.topic, o.key, o.value, o.dedupe_id) for o in local.produced]
    expected = [(o.topic, o.key, o.value, o.dedupe_id) for o in topic.produced]
    assert Counter(shown) == Counter(expected)
    assert any(o.topic == NAMES.awards for o in local.produced)


def test_a_claim_left_in_the_topic_is_applied_before_the_tables_next_one() -> None:
    """The trap: table T's claim on meter m is in the topic (written while this worker did not
    own m), then m's partition comes to this worker, then T's next lock is decided before the
    topic's backlog. Applied locally, T's next claim would move m's mark past the queued one,
    which the meter lane then skips as a redelivery: money lost."""
    local, topic = worlds(PLAIN, 400, 7)
    for _ in range(3):  # this worker owns no meter: every claim goes to the topic
        local.commit(local.table_batch((), 30))
    backlog = sum(len(local.logs[(NAMES.meter_claims, p)]) for p in range(PARTS))
    while busy(local):
        local.commit(local.table_batch(range(PARTS), 30))  # now owns every meter
    local.drain()
    topic.drain()
    while busy(topic):
        topic.commit(topic.table_batch((), 30))
        topic.drain()
    assert backlog > len(local.meters())  # claims were queued when ownership came
    assert money(local) == money(topic)


def backlog_then_ownership(seed: int) -> tuple[World, World]:
    """The zombie's case in one process: this worker's tables write their claims to the topic
    (it owns no meter: another worker does, or it just took the tables over), then every
    meter-claims partition comes to it with that backlog unread. Beside it, the world that
    applies each batch's claims through the topic, batch after batch: the lock order."""
    local, topic = worlds(PLAIN, 400, seed)
    for _ in range(3):
        local.commit(local.table_batch((), 30))
    while busy(local):
        local.commit(local.table_batch(range(PARTS), 30))
    local.drain()
    topic.drain()
    while busy(topic):
        topic.commit(topic.table_batch((), 30))
        topic.drain()
    return local, topic


def awards(world: World) -> list[tuple[str | None, bytes]]:
    """Every award record (progressive amounts included), by its id."""
    return sorted((o.dedupe_id, o.value) for o in world.produced if o.topic == NAMES.awards)


@pytest.mark.parametrize("seed", [0, 2, 7])
def test_a_local_claim_never_passes_another_tables_claim_left_in_the_topic(seed: int) -> None:
    """Table T1's claim on meter m waits in the topic when m comes to this worker; T2's next
    lock must not reach m before it, or a hit is priced without T1's contribution (the CI's
    zombie run: a progressive award $1.82 short, another that much over, the totals equal). So
    every meter and every award, amounts included, equal the lock order's."""
    local, topic = backlog_then_ownership(seed)
    assert {m: meter_to_dict(s) for m, s in local.meters().items()} == {
        m: meter_to_dict(s) for m, s in topic.meters().items()
    }
    assert awards(local) == awards(topic)
    assert any(b'"kind":"progressive"' in value for _, value in awards(local))


def test_without_the_queue_a_local_claim_passes_the_backlog() -> None:
    """The check of the test above can fail: with `QueuedClaims` saying nothing is queued, the
    same seeds give other meters or other award amounts (a generic method lookup, patched for
    the compiled `local_apply` as well)."""
    with mock.patch.object(QueuedClaims, "none_before", return_value=True):
        differ = [backlog_then_ownership(seed) for seed in (0, 2, 7)]
    assert any(
        awards(local) != awards(topic) or local.meters() != topic.meters()
        for local, topic in differ
    )


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1), text=st.sampled_from([PLAIN, DEMO]), seeded=st.booleans())
def test_ownership_moving_under_any_schedule_loses_no_claim(
    seed: int, text: str, seeded: bool
) -> None:
    """Partitions of meter-claims come and go between batches, their backlog applied sometimes
    by this worker, sometimes by another, batches decided and dropped (a migrated commit), the
    meters seeded by the provisioning seeds or by their first claim applied locally, and every
    contribution is counted once: each meter's total equals the topic's."""
    rng = random.Random(seed)  # a repeatable schedule
    local, topic = worlds(text, 300, seed, seeded=seeded)
    while busy(local):
        owned = [p for p in range(PARTS) if rng.random() < 0.6]
        batch = local.table_batch(owned, rng.randint(1, 25))
        if rng.random() < 0.15:
            continue  # decided, then dropped: nothing of it stays
        local.commit(batch)
        for part in range(PARTS):
            if part not in owned and rng.random() < 0.3:  # another worker's batch
                local.commit(local.claims_batch((NAMES.meter_claims, part), rng.randint(1, 9)))
    local.drain()
    while busy(topic):
        topic.commit(topic.table_batch((), 50))
    topic.drain()
    assert money(local) == money(topic)
    awards = {o.dedupe_id for o in local.produced if o.topic == NAMES.awards}
    assert awards == {o.dedupe_id for o in topic.produced if o.topic == NAMES.awards}


def test_the_guard_is_what_keeps_the_trap_shut() -> None:
    """Without the owed-claim checks the trap test loses money (so that test can fail). Two
    checks hold it now, each enough alone: the table's own ``owed`` (`local_apply._caught_up`)
    and the queue of every table's claims left in the topic (`QueuedClaims`, which holds the
    table's own too), so both are taken out. `_caught_up` is taken out by patching the module;
    compiled (`streams.compiled`), local apply calls it directly, so a process running it
    compiled asks an interpreted child."""
    if local_apply.__file__ is None or local_apply.__file__.endswith(".py"):
        trap_without_the_guard()
        return
    child = "from tests.streams.scaleout.test_local_apply import trap_without_the_guard as t; t()"
    env = {**os.environ, "JACKPOT_COMPILED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", child], cwd=ROOT, env=env, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def trap_without_the_guard() -> None:
    """The trap test with `_caught_up` and `QueuedClaims.none_before` always true (interpreted
    only): it must fail."""
    assert local_apply.__file__ is not None
    assert local_apply.__file__.endswith(".py")
    opened = mock.patch.object(local_apply, "_caught_up", return_value=True)
    queued = mock.patch.object(QueuedClaims, "none_before", return_value=True)
    with opened, queued, pytest.raises(AssertionError):
        test_a_claim_left_in_the_topic_is_applied_before_the_tables_next_one()


def test_a_meter_is_seeded_once_by_its_first_local_claim() -> None:
    """Claims decided before the provisioning seeds are read (a fresh deployment with a
    backlog) seed their meters locally; the seeds read later change nothing."""
    local, topic = worlds(PLAIN, 300, 11, seeded=False)
    while busy(local):
        local.commit(local.table_batch(range(PARTS), 40))
    written = sum(len(local.logs[(NAMES.meter_claims, p)]) for p in range(PARTS))
    assert written == len(local.meters())  # the seeds only: every claim applied locally
    local.drain()  # the seeds, last
    while busy(topic):
        topic.commit(topic.table_batch((), 40))
        topic.drain()
    assert money(local) == money(topic)
    assert seeds(local) == seeds(topic)  # once each, and once after each hit's reset


def seeds(world: World) -> Counter[str]:
    """The meter events that seeded a meter, per meter."""
    return Counter(o.key for o in world.produced if b'"type":"meter_seeded"' in o.value)
