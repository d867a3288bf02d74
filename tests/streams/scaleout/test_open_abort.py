"""An aborted batch leaves the round lane's state as it was (issue 13, branch ``k13-s25``).

The worker's lane decides locks, settlements and openings on the open table too
(`streams.scaleout.open_rounds`), so a batch now changes much more of a table in place: all on
a copy (`OpenTable` opens from the committed record's `Table.thaw`), never on the committed
record. Here each batch of a floor is decided, dropped as an aborted transaction drops it
(nothing committed: `TxLoop` keeps a batch's records only once produced, and a failed commit
restores from the changelog), then decided again from the same state: the committed records
and their changelog bytes are unchanged by the first decide, and the second gives the first's
outputs, outcomes and records byte for byte (what the broker's retry would write)."""

from __future__ import annotations

import json
from typing import Any

from controller.config.floor import load_floor_config
from streams.scaleout.batch import Batch
from tests.controller.fast.differential import simulated
from tests.streams.scaleout.local_world import NAMES, World
from tests.streams.scaleout.test_procs_differential import PLAIN

Stored = dict[tuple[str, int], dict[bytes, bytes]]


def _stored(world: World) -> Stored:
    """The world's committed records as their changelog bytes."""
    return {
        where: {key: world.lanes[where[0]].to_bytes(r) for key, r in state.records.items()}
        for where, state in world.store.items()
    }


def _shown(world: World, batch: Batch) -> tuple[Any, ...]:
    """What a batch's transaction would write: outputs, outcomes, records' bytes, progress."""
    outputs = {
        name: [(o.topic, o.key, o.value) for o in outs] for name, outs in batch.outputs.items()
    }
    records = {
        where: {key: world.lanes[where[0]].to_bytes(r) for key, r in recs.items()}
        for where, recs in batch.states.items()
    }
    return outputs, batch.outcomes, records, batch.progress


def test_a_dropped_batch_leaves_the_state_and_decides_again_the_same() -> None:
    world = World(PLAIN, None)
    config = load_floor_config(PLAIN, "floor.toml")
    raws = simulated(config, 20261204, 0.3, 0.03)
    for _ in range(2_000):
        raw = next(raws)
        world.append(NAMES.table_events, str(raw["table_id"]), json.dumps(raw).encode())
    batches, kinds = 0, set[str]()
    while any(world.pending((NAMES.table_events, p), 1) for p in range(3)):
        before = _stored(world)
        progress = {where: state.progress for where, state in world.store.items()}
        dropped = world.table_batch((0, 1, 2), 40)
        assert _stored(world) == before  # nothing of the dropped batch reached the state
        assert {where: state.progress for where, state in world.store.items()} == progress
        again = world.table_batch((0, 1, 2), 40)
        assert _shown(world, again) == _shown(world, dropped)
        kinds.update(o for outs in again.outcomes.values() for o in outs)
        world.commit(again)
        batches += 1
    assert batches > 10
    assert {"accepted", "applied"} <= kinds, kinds
