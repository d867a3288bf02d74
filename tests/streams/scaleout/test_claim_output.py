"""The round lane's lazy claims (`streams.scaleout.claim_output`) and local apply's shortcut for an
event without claims give what main gave: a claim's bytes are `claim_bytes`'s, the operation
local apply takes from it is the one `op_from_bytes` reads from those bytes, and a worker that
applies claims locally produces and stores, batch for batch, exactly what main's worker does
(main's round processor and local apply, `tests.streams.scaleout.mainref.bf26c78`)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config.floor import load_floor_config
from controller.meter import MeterClaim
from streams.codec import Output
from streams.scaleout import mystery
from streams.scaleout.claim_output import Claim, new_claim
from streams.scaleout.heard import Heard, new_heard
from streams.scaleout.meter_ops import claim_bytes, op_from_bytes
from streams.scaleout.queued import QueuedClaims
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.rounds import table_record_from_bytes, table_record_to_bytes
from streams.scaleout.store import Lane, PartitionState
from tests.streams.scaleout.local_world import NAMES, PARTS, World
from tests.streams.scaleout.mainref.bf26c78 import local_apply as main_local
from tests.streams.scaleout.mainref.bf26c78 import rounds as main_rounds
from tests.streams.scaleout.procs_harness import disturbed, fixed_draw
from tests.streams.scaleout.test_fast_records import CLAIMS, INTS

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PLAIN = (EXAMPLES / "pa-three-card-poker.toml").read_text("utf-8")
DEMO = (EXAMPLES / "pa-three-card-poker-demo.toml").read_text("utf-8")  # ceiling, mystery
MYSTERY = (EXAMPLES / "pa-three-card-poker-mystery.toml").read_text("utf-8")
KEY = bytes(range(32))


@given(CLAIMS, INTS, INTS)
def test_a_claim_is_mains_output_and_its_operation(claim: MeterClaim, seq: int, index: int) -> None:
    """Every field of the eager `Output` main wrote, and the operation its bytes hold (by repr:
    a True is not a 1), for any claim, escapes and lone surrogates included."""
    lazy = new_claim("p.meter-claims", claim.meter_id, "e1#0", claim, seq, index)
    payload = claim_bytes(claim, seq, index)
    eager = Output("p.meter-claims", claim.meter_id, payload, "e1#0")
    shown = (lazy.topic, lazy.key, lazy.value, lazy.dedupe_id, lazy.latest_wins)
    assert shown == (eager.topic, eager.key, eager.value, eager.dedupe_id, eager.latest_wins)
    assert lazy.value is lazy.value  # encoded once
    assert repr(lazy.op()) == repr(op_from_bytes(payload))
    assert repr(lazy).removeprefix("Claim") == repr(eager).removeprefix("Output")


SLOTS = ("topic", "key", "value", "dedupe_id", "latest_wins")


@given(CLAIMS, INTS, INTS)
def test_the_lazy_outputs_are_built_as_their_constructors_build_them(
    claim: MeterClaim, seq: int, index: int
) -> None:
    """`new_claim` and `new_heard` (native when the extension runs) make the objects `Claim` and
    `Heard` make: every slot, the parent's and their own."""
    args = ("p.meter-claims", claim.meter_id, "e1#0", claim, seq, index)
    made, expected = new_claim(*args), Claim(*args)
    assert made.encoded is None  # not encoded until read
    assert expected.encoded is None
    own = ("claim", "table_seq", "index", "encoded")
    assert type(made) is Claim
    assert [getattr(made, n) for n in (*SLOTS, *own)] == [
        getattr(expected, n) for n in (*SLOTS, *own)
    ]
    pos = SourcePos("p.table-events", seq % 7, abs(index), 3)
    heard, eager = (
        new_heard("p.liveness", "t1", "event", "e1", pos),
        Heard("p.liveness", "t1", "event", "e1", pos),
    )
    assert type(heard) is Heard
    names = (*SLOTS, "heard", "event_id", "pos")
    assert [getattr(heard, n) for n in names] == [getattr(eager, n) for n in names]
    assert heard.dedupe_id == f"heard@{pos.label}"


class MainInOrder(main_local.LocalApply):
    """main's local apply at bf26c78 with the one rule it lacked (2026-12-03): a claim is not
    applied here while another table's claim on the meter waits in the topic
    (`streams.scaleout.queued`; it let a local claim pass the backlog, and a hit be priced
    without an earlier lock's contribution). main's code runs unchanged; its per-table check
    (`_caught_up`) is asked of the queue as well, and each table's ``owed`` it leaves is what
    went to the topic (the last claim per meter, as the worker's `QueuedClaims.wrote` hears)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.queued = QueuedClaims(self.topic)

    def begin(self, states: Mapping[tuple[str, int], PartitionState[Any]]) -> None:
        self.queued.follow(states)

    def applied(
        self,
        result: Processed[Any],
        batch_states: dict[tuple[str, int], dict[bytes, Any]],
        progress: dict[tuple[str, int], int],
        outcomes: list[str],
        states: Mapping[tuple[str, int], PartitionState[Any]],
    ) -> Processed[Any]:
        mains_check = main_local._caught_up

        def caught_up(meter: Any, table_id: str, owed: tuple[int, int] | None) -> bool:
            if not mains_check(meter, table_id, owed):
                return False
            return meter is None or self.queued.none_before(meter.meter.meter_id, meter.marks)

        with mock.patch.object(main_local, "_caught_up", caught_up):
            done = super().applied(result, batch_states, progress, outcomes, states)
        if done.record is not None:
            for meter_id, seq, index in done.record.owed:
                self.queued.wrote(meter_id, done.record.table.table_id, (seq, index))
        return done


def mains(text: str) -> World:
    """A world whose round lane and local apply are main's (claims encoded, then decoded)."""
    world = World(text, KEY)
    config = load_floor_config(text, "floor.toml")
    lane = world.lanes[NAMES.table_events]
    world.lanes[NAMES.table_events] = Lane(
        lane.name,
        lane.source,
        lane.changelog,
        main_rounds.RoundProcessor(config, NAMES).process,
        table_record_to_bytes,
        table_record_from_bytes,
    )
    assert world.local is not None
    meters = world.local._meters  # the same meter processor, with main's local apply
    world.local = MainInOrder(meters, NAMES.meter_claims, PARTS)  # type: ignore[assignment]
    return world


def stored(world: World) -> dict[tuple[str, int], dict[bytes, bytes]]:
    """Every stored record as its changelog bytes."""
    return {
        where: {k: world.lanes[where[0]].to_bytes(r) for k, r in state.records.items()}
        for where, state in world.store.items()
    }


def compared(text: str, seed: int) -> tuple[int, int]:
    """Both worlds through the same schedule: meter-claims partitions owned or not per batch
    (claims applied here, or written and owed, then applied by their owner), batches dropped;
    every batch's outcomes, outputs (topic, key, value bytes, dedupe id) and stored records
    compared. The claims written to the topic and the meter events produced."""
    ours, theirs = World(text, KEY), mains(text)
    for world in (ours, theirs):
        for table, value in disturbed(text, 250, seed, 0.3):
            world.append(NAMES.table_events, table, value)
        world.drain()  # the provisioning seeds
    seeds, rng = (
        sum(len(ours.logs[(NAMES.meter_claims, p)]) for p in range(PARTS)),
        random.Random(seed),
    )
    while any(ours.pending((NAMES.table_events, p), 1) for p in range(PARTS)):
        owned = [p for p in range(PARTS) if rng.random() < 0.6]
        size, dropped = rng.randint(1, 30), rng.random() < 0.1
        batches = [world.table_batch(owned, size) for world in (ours, theirs)]
        got, want = (
            (b.outcomes, [(o.topic, o.key, o.value, o.dedupe_id) for v in b.outputs.values()
                          for o in v])
            for b in batches
        )  # fmt: skip
        assert got == want
        if dropped:
            continue
        drained = rng.random() < 0.3  # the owners of the claims written apply them
        for world, batch in zip((ours, theirs), batches, strict=True):
            world.commit(batch)
            if drained:
                world.drain()
        assert stored(ours) == stored(theirs)
    assert [o.value for o in ours.produced] == [o.value for o in theirs.produced]
    written = sum(len(ours.logs[(NAMES.meter_claims, p)]) for p in range(PARTS)) - seeds
    return written, sum(
        o.topic == NAMES.events and b'"meter_seq"' in o.value for o in ours.produced
    )


@pytest.mark.parametrize("text", [PLAIN, DEMO, MYSTERY], ids=["plain", "demo", "mystery"])
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_local_path_gives_mains_records(
    text: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mystery, "draw", fixed_draw)  # both worlds draw the same triggers
    compared(text, seed)


@pytest.mark.parametrize("text", [PLAIN, DEMO, MYSTERY], ids=["plain", "demo", "mystery"])
def test_the_comparison_sees_claims_both_ways(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A schedule where claims were both applied here and written to the topic (so the test
    above can see a difference in either)."""
    monkeypatch.setattr(mystery, "draw", fixed_draw)
    written, meter_events = compared(text, 20261202)
    assert written > 0
    assert meter_events > written
