"""Two round/meter processor pairs run side by side as the worker runs them, without Kafka.

`Pair` drives a candidate processor and a reference one (main's, `tests.streams.scaleout.mainref`)
over the same log the way `streams.scaleout.txloop` does: batches of records, each key's record
read from the batch's own results first, then from the in-memory state, and each touched key's
record encoded once per batch into the "changelog". A run may rewind the consumer (a redelivery:
offsets moved back, state kept), crash (the batch's state dropped, the state restored from the
changelog bytes, the batch read again) or drop a decided batch with the state in memory kept (the
worker's loop after a migrated commit, for the partitions it does not restore). Every step of
both must agree: outcome, every output (topic, key, value bytes, dedupe id, latest-wins), the
record's stored bytes after every input and the changelog after every batch.
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from controller.config.floor import FloorConfig, load_floor_config
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.embedded.mystery import draw
from streams.scaleout import meters, mystery, rounds
from streams.scaleout import open_rounds as open_rounds_module
from streams.scaleout.open_table import OpenTable, sealed
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.table_record import TableRecord
from tests.controller.fast.differential import simulated
from tests.streams.scaleout.local_side import MeterSide, Sides, local_lanes
from tests.streams.scaleout.mainref import meters as ref_meters
from tests.streams.scaleout.mainref import rounds as ref_rounds

NAMES = TopicNames("diff")
PARTITIONS = 3
STAMP_MS = 1_796_000_000_000
Step = Callable[..., Any]  # main's copy has its own (equal) SourcePos and Processed classes
Entry = tuple[str | None, bytes, int]  # key, value, timestamp
Shown = tuple[str, tuple[tuple[str, str, bytes, str, bool], ...], bytes | None]


@dataclass(slots=True)
class Lane:
    """One processor with its codec, state and changelog (as stored bytes per key)."""

    step: Step
    to_bytes: Callable[[Any], bytes]
    from_bytes: Callable[[bytes], Any]
    state: dict[tuple[int, str], Any] = field(default_factory=dict)
    changelog: dict[tuple[int, str], bytes] = field(default_factory=dict)
    side: MeterSide | None = None  # its local apply's meters (`local_side`)

    def restore(self) -> None:
        """Drop the in-memory state and read it back from the changelog (a restart)."""
        self.state = {where: self.from_bytes(raw) for where, raw in self.changelog.items()}
        if self.side is not None:
            self.side.restore()


def lanes(
    config: FloorConfig, key: bytes | None, *, open_rounds: bool = False, open_meters: bool = False
) -> tuple[tuple[Lane, Lane], tuple[Lane, Lane]]:
    """(candidate, reference) round lanes and (candidate, reference) meter lanes; with
    ``open_rounds`` the candidate round lane is the worker's (`OpenRoundProcessor.process_open`: a
    table's record open within a batch, sealed at its end as `streams.scaleout.batch.decide`
    seals it); with ``open_meters`` both round lanes apply their claims locally, the worker's
    lane growing open meters against main's local apply (`local_side`)."""
    processor = open_rounds_module.OpenRoundProcessor(config, NAMES)
    new_round = processor.process_open if open_rounds else processor.process
    old_round = ref_rounds.RoundProcessor(config, NAMES).process
    new_meter = meters.MeterProcessor(config, NAMES, key).process
    old_meter = ref_meters.MeterProcessor(config, NAMES, key).process
    table_codec = (rounds.table_record_to_bytes, rounds.table_record_from_bytes)
    round_lanes = (
        Lane(new_round, *table_codec),
        Lane(old_round, ref_rounds.table_record_to_bytes, ref_rounds.table_record_from_bytes),
    )
    if open_meters:  # both lanes' records are the worker's `TableRecord` (with ``owed``)
        (worker, mine), (main, theirs) = local_lanes(config, NAMES, key, PARTITIONS)
        round_lanes = (Lane(worker, *table_codec, side=mine), Lane(main, *table_codec, side=theirs))
    return (
        round_lanes,
        (
            Lane(new_meter, meters.meter_record_to_bytes, meters.meter_record_from_bytes),
            Lane(old_meter, ref_meters.meter_record_to_bytes, ref_meters.meter_record_from_bytes),
        ),
    )


def shown(result: Processed[Any], to_bytes: Callable[[Any], bytes]) -> Shown:
    outs = tuple((o.topic, o.key, o.value, o.dedupe_id, o.latest_wins) for o in result.outputs)
    record = result.record
    if isinstance(record, OpenTable):  # its record as it stands, the open one left open
        record = peek(record)
    stored = None if record is None else to_bytes(record)
    return result.outcome, outs, stored


@dataclass(slots=True)
class Pair:
    """A candidate lane and a reference lane fed one log (partition -> entries)."""

    topic: str
    lanes: tuple[Lane, Lane]
    log: dict[int, list[Entry]] = field(default_factory=dict)
    outcomes: Counter[str] = field(default_factory=Counter)

    def append(self, key: str | None, value: bytes, stamp: int = STAMP_MS) -> None:
        part = zlib.crc32((key or "").encode("utf-8", "replace")) % PARTITIONS
        self.log.setdefault(part, []).append((key, value, stamp))

    def run(self, rng: random.Random, batch: int, on_output: Callable[[Output], None]) -> None:
        """The whole log through both lanes, with rewinds and crashes drawn from ``rng``."""
        positions: dict[int, int] = {}
        while any(positions.get(p, 0) < len(self.log[p]) for p in list(self.log)):
            start = dict(positions)
            taken = self._take(positions, batch, rng)
            roll = rng.random()
            if roll < 0.1:  # a crash before the commit: nothing of the batch stays
                self._batch(taken, lambda out: None)
                for lane in self.lanes:
                    lane.restore()
                positions = start
                continue
            if roll < 0.15:  # decided, then dropped with the state in memory kept as it was
                self._batch(taken, lambda out: None, keep=False)  # (txloop: a batch decided
                positions = start  # while the previous one's commit migrated: its partitions
                continue  # restored, the others' records reused as they are)
            self._batch(taken, on_output)
            if roll < 0.25:  # offsets moved back with the state kept: redelivered
                positions = {p: max(0, o - rng.randint(1, batch)) for p, o in positions.items()}
            elif roll < 0.3:
                for lane in self.lanes:
                    lane.restore()

    def _take(
        self, positions: dict[int, int], batch: int, rng: random.Random
    ) -> list[tuple[int, int, Entry]]:
        taken, entries = [], self.log
        for _ in range(batch):
            ready = [p for p in sorted(self.log) if positions.setdefault(p, 0) < len(entries[p])]
            if not ready:
                break
            part = rng.choice(ready)
            taken.append((part, positions[part], entries[part][positions[part]]))
            positions[part] += 1
        return taken

    def _batch(
        self,
        taken: list[tuple[int, int, Entry]],
        on_output: Callable[[Output], None],
        *,
        keep: bool = True,
    ) -> None:
        pending: list[dict[tuple[int, str], Any]] = [{}, {}]
        sides = Sides.of(self.lanes[0].side, self.lanes[1].side)
        if sides is not None:
            sides.begin()
        for part, offset, (key, value, stamp) in taken:
            pos = SourcePos(self.topic, part, offset, stamp)
            seen = []
            usable = key is not None and not key.startswith("\x00")  # `PartitionState.get`
            for lane, mine in zip(self.lanes, pending, strict=True):
                where = (part, key or "")
                record = mine[where] if where in mine else lane.state.get(where)
                result = lane.step(record if usable else None, key, value, pos)
                seen.append((shown(result, lane.to_bytes), result))
                if result.record is not None and usable:
                    mine[where] = result.record
            assert seen[0][0] == seen[1][0], (self.topic, part, offset, key, value)
            if sides is not None:  # the meters local apply holds (open ones peeked)
                sides.compare(part, offset, value)
            self.outcomes[seen[0][1].outcome] += 1
            for out in seen[0][1].outputs:
                on_output(out)
        if sides is not None:  # sealed as `batch.decide` seals them, then committed
            self.outcomes.update(sides.end(keep=keep))
        if not keep:
            return
        for mine in pending:  # what `batch.decide` does at its end
            mine.update((where, sealed(record)) for where, record in mine.items())
        for lane, mine in zip(self.lanes, pending, strict=True):
            for where, record in mine.items():
                lane.changelog[where] = lane.to_bytes(record)
                lane.state[where] = record
        assert self.lanes[0].changelog == self.lanes[1].changelog


def peek(table: OpenTable) -> TableRecord:
    """The record ``table`` would seal into now, ``table`` left open: `OpenTable.seal` copies
    its lists and set and hands on its dict of ids, so it seals with a copy of that dict (a
    compiled class, `streams.compiled`: no twin made with ``object.__new__``)."""
    ids = table.ids
    table.ids = dict(ids)
    try:
        return table.seal()
    finally:
        table.ids = ids


def fixed_draw(*args: Any, **kwargs: Any) -> Any:
    """The mystery draw with its randomness fixed (the secure draw differs on every call)."""
    kwargs |= {"randbelow": lambda bound: bound // 3, "token_hex": lambda size: "ab" * size}
    return draw(*args, **kwargs)


def run_floor(
    text: str,
    lines: list[tuple[str | None, bytes]],
    seed: int,
    batch: int,
    *,
    open_rounds: bool = False,
    open_meters: bool = False,
) -> Counter[str]:
    """``lines`` through both round lanes, then their claims (and diverts) through both meter
    lanes; the outcomes counted (every step already compared; with ``open_meters`` the claims
    applied locally counted as ``local:<outcome>``)."""
    config = load_floor_config(text, "floor.toml")
    key = bytes(range(32)) if any(d.mystery for d in config.meters.values()) else None
    round_lanes, meter_lanes = lanes(config, key, open_rounds=open_rounds, open_meters=open_meters)
    tables, claims = Pair(NAMES.table_events, round_lanes), Pair(NAMES.meter_claims, meter_lanes)
    for table, value in lines:
        tables.append(table, value)

    def claim(out: Output) -> None:
        if out.topic == NAMES.meter_claims:
            claims.append(out.key, out.value)

    rng = random.Random(seed)  # a repeatable schedule of batches, rewinds and crashes
    with mock.patch.object(mystery, "draw", fixed_draw):  # both lanes draw the same trigger
        tables.run(rng, batch, claim)
        claims.run(rng, batch, claim)  # diverts are appended to the log being read
    return tables.outcomes + claims.outcomes


def disturbed(
    text: str, count: int, seed: int, forced: float
) -> Iterator[tuple[str | None, bytes]]:
    """A simulated floor's lines (keyed by table) with devices' and producers' mistakes: exact
    retries, reused ids with other content, lines that are not events, wrong keys, heartbeats
    (one from an unknown table), and neighbours swapped (out of order)."""
    rng = random.Random(seed ^ 0x5EED)  # a repeatable test input
    config = load_floor_config(text, "floor.toml")
    raws = simulated(config, seed, forced, 0.03)
    held: tuple[str, bytes] | None = None
    recent: list[tuple[str, dict[str, Any]]] = []
    for number in range(count):
        raw = next(raws)
        table, line = str(raw["table_id"]), json.dumps(raw, separators=(",", ":")).encode()
        yield from _mistake(rng, recent, table, number)
        if held is None and rng.random() < 0.03:
            held = (table, line)  # sent after the next one: out of order
            continue
        yield table, line
        if held is not None:
            yield held
            held = None
        recent = [*recent[-40:], (table, raw)]


def _mistake(
    rng: random.Random, recent: list[tuple[str, dict[str, Any]]], table: str, number: int
) -> Iterator[tuple[str | None, bytes]]:
    roll = rng.random()
    if roll < 0.04 and recent:
        old_table, old = rng.choice(recent)
        yield old_table, json.dumps(old, separators=(",", ":")).encode()  # an exact retry
    elif roll < 0.05 and recent:
        old_table, old = rng.choice(recent)
        changed = {**old, "occurred_at": "2026-12-01T09:00:00.000Z"}
        yield old_table, json.dumps(changed).encode()  # the id again, other content
    elif roll < 0.06:
        yield table, rng.choice([b"not json", b"[1,2]", b'{"type":"x"}', b"\xff\xfe", b"{}"])
    elif roll < 0.07 and recent:
        other, old = rng.choice(recent)
        yield rng.choice([None, f"{other}-x", "\x00next:0", "t\u00e9"]), json.dumps(old).encode()
    elif roll < 0.1:
        beat: dict[str, object] = {"event_id": f"hb-{number}", "type": "heartbeat"}
        beat["table_id"] = table
        beat |= {"occurred_at": "2026-12-01T09:00:00Z", "schema_version": 2}
        if roll < 0.075:
            beat["table_id"] = table = "nowhere-7"
        yield table, json.dumps(beat).encode()
