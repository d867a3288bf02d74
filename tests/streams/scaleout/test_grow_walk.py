"""The round lane's native walk of its grown inputs (`streams.scaleout.grow`,
``streams/native/src/grow_walk.rs``) against the loop without it, byte for byte.

Two workers (`local_world.World`: both lanes, local apply) take the same batches of a disturbed
floor (`procs_harness.disturbed`: retries, reused ids, wrong keys, lines that are not events,
out of order; and here lines keyed by another table of the floor), one with the walk on its
round lane and one without (the loop and `OpenRoundProcessor.process_open` for every record,
which ``test_procs_differential.py`` holds to main's). Batches come partition after partition
with random sizes, sometimes in two parts (`decide`'s ``into``, as `batch.more` adds to a
batch); after each, everything the transaction
would write must be equal: every output (topic, key, value bytes, dedupe id, latest-wins), every
outcome, every state record's bytes, every partition's progress. Some batches are dropped (a
crash: the committed state is read back) and some offsets moved back with the state kept
(redeliveries), so the walk meets records it must hand back.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.kafka_local_probe import Consumed
from streams import native
from streams.scaleout import mystery
from streams.scaleout.batch import Batch, decide
from streams.scaleout.grow import walker
from tests.streams.scaleout.local_world import NAMES, PARTS, World
from tests.streams.scaleout.procs_harness import disturbed, fixed_draw

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PLAIN = (EXAMPLES / "pa-three-card-poker.toml").read_text("utf-8")
DEMO = (EXAMPLES / "pa-three-card-poker-demo.toml").read_text("utf-8")
KEY = b"k" * 32

pytestmark = pytest.mark.skipif(native.load() is None, reason="the native extension is not built")


def _walking(world: World) -> World:
    """``world`` with its round lane walking its grown inputs."""
    lane = world.lanes[NAMES.table_events]
    walk = walker(lane.process.__self__)  # type: ignore[attr-defined]
    assert walk is not None
    world.lanes[NAMES.table_events] = dataclasses.replace(lane, walk=walk)
    return world


def _batch(world: World, owned: list[int], limit: int, cut: int) -> Batch:
    """`World.table_batch`, decided in two calls when ``cut`` falls inside it (`into`)."""
    mine = [(NAMES.meter_claims, p) for p in owned]
    tables = [(NAMES.table_events, p) for p in range(PARTS)]
    records: list[Any] = [m for w in tables for m in world.pending(w, limit)]
    records += [m for w in mine for m in world.pending(w, limit)]
    states: Any = {w: world.store[w] for w in (*tables, *mine)}
    first = decide(records[:cut], world.lanes, states, world.local)
    return decide(records[cut:], world.lanes, states, world.local, into=first)


def _shown(world: World, batch: Batch) -> tuple[Any, ...]:
    """Everything of ``batch`` its transaction writes, as bytes."""
    outputs = {
        name: [(o.topic, o.key, o.value, o.dedupe_id, o.latest_wins) for o in outs]
        for name, outs in batch.outputs.items()
    }
    states = {
        where: [(key, world.lanes[where[0]].to_bytes(record)) for key, record in records.items()]
        for where, records in batch.states.items()
    }
    return outputs, batch.outcomes, states, batch.progress, batch.records


def _restore(world: World) -> None:
    """A restart: every committed record read back from its bytes."""
    for where, state in world.store.items():
        lane = world.lanes[where[0]]
        state.records = {k: lane.from_bytes(lane.to_bytes(r)) for k, r in state.records.items()}


def run_both(text: str, seed: int, limit: int) -> int:
    """A disturbed floor through both workers; the walking one's records accepted."""
    with mock.patch.object(mystery, "draw", fixed_draw):  # both draw the same mystery trigger
        return _run_both(text, seed, limit)


def _run_both(text: str, seed: int, limit: int) -> int:
    plain, walking = World(text, KEY), _walking(World(text, KEY))
    rng = random.Random(seed)  # a repeatable test input
    tables: list[str] = []
    for key, line in disturbed(text, 300, seed, 0.3):
        if key is not None and key not in tables:
            tables.append(key)
        keyed = rng.choice(tables) if tables and rng.random() < 0.03 else key  # another table's
        for world in (plain, walking):
            world.append(NAMES.table_events, keyed, line)
    accepted = 0
    for _ in range(400):
        owned = [p for p in range(PARTS) if rng.random() < 0.6]
        size, cut = rng.randint(1, limit), rng.randint(0, 3 * limit)
        batches = [_batch(world, owned, size, cut) for world in (plain, walking)]
        assert _shown(plain, batches[0]) == _shown(walking, batches[1])
        if not batches[0].records:
            break
        roll = rng.random()
        if roll < 0.1:  # dropped before its commit: a restart
            for world in (plain, walking):
                _restore(world)
            continue
        kept = {where: state.progress for where, state in plain.store.items()}
        for world, done in zip((plain, walking), batches, strict=True):
            world.commit(done)
        accepted += batches[1].outcomes.get("round", []).count("accepted")
        if roll < 0.2:  # offsets moved back, the state kept: redelivered
            for world in (plain, walking):
                for where, progress in kept.items():
                    world.store[where].progress = progress
    return accepted


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1), limit=st.integers(1, 80), text=st.sampled_from([PLAIN, DEMO])
)
def test_decide_with_the_walk_writes_what_it_writes_without(
    seed: int, limit: int, text: str
) -> None:
    assert run_both(text, seed, limit) > 0


def test_a_floor_in_whole_batches() -> None:
    """Batches of up to 500 (the worker's), where most of a table's inputs are walked."""
    assert run_both(PLAIN, 20261204, 500) > 200


def _offset_taken_twice(world: World) -> list[Consumed]:
    """A table partition's pending records up to the first wager that follows a wager of its
    own table (so the table is held open when the walk meets it), that wager given at the
    offset of the one before it: an offset the table already reflects, carrying an input the
    table has not seen."""
    for part in range(PARTS):
        records = world.pending((NAMES.table_events, part), 400)
        for at in range(2, len(records)):
            before, wager = records[at - 1], records[at]
            wagers = all(b'"type":"wager_placed"' in r.value() for r in (before, wager))
            if before.key() == wager.key() and wagers:
                again = Consumed(wager.where, before.offset(), wager.key(), wager.value())
                return [*records[:at], again]
    raise AssertionError("no wager after a wager of its own table on the floor")


def test_a_record_at_an_offset_the_table_reflects_is_handed_back() -> None:
    """No consumer delivers an offset twice in a batch, so `decide` on a floor never shows the
    walk's own redelivery check (`process_open` skips such an input); a batch holding one does:
    both workers must skip it as redelivered, the walking one without growing it."""
    plain, walking = World(PLAIN, KEY), _walking(World(PLAIN, KEY))
    for key, line in disturbed(PLAIN, 300, 20261205, 0.3):
        for world in (plain, walking):
            world.append(NAMES.table_events, key, line)
    records = _offset_taken_twice(plain)
    assert records == _offset_taken_twice(walking)
    states = [{w: world.store[w] for w in world.store} for world in (plain, walking)]
    batches = [
        decide(records, world.lanes, state, world.local)  # type: ignore[arg-type]
        for world, state in zip((plain, walking), states, strict=True)
    ]
    assert batches[0].outcomes["round"][-1] == "redelivered"
    assert _shown(plain, batches[0]) == _shown(walking, batches[1])
