"""The round lane's open records (`streams.scaleout.open_table`) against main's processors.

`OpenRoundProcessor.process_open` grows a table's record in place across a batch and the batch's
decide seals it once: every output, outcome and record (the open one peeked at after every
input, `procs_harness.peek`) must be main's, byte for byte, through the harness's batches,
crashes, dropped batches and redeliveries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config.floor import load_floor_config
from streams.scaleout.open_rounds import OpenRoundProcessor
from streams.scaleout.open_table import OpenTable
from streams.scaleout.records import SourcePos
from streams.scaleout.rounds import table_record_from_bytes, table_record_to_bytes
from streams.scaleout.table_record import RECENT_IDS, TableRecord
from tests.controller.fast.differential import simulated
from tests.streams.scaleout.procs_harness import NAMES, disturbed, run_floor

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PLAIN = (EXAMPLES / "pa-three-card-poker.toml").read_text("utf-8")
DEMO = (EXAMPLES / "pa-three-card-poker-demo.toml").read_text("utf-8")  # ceiling, mystery
MYSTERY = (EXAMPLES / "pa-three-card-poker-mystery.toml").read_text("utf-8")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    forced=st.sampled_from([0.0, 0.3, 0.8]),
    batch=st.integers(1, 60),
    text=st.sampled_from([PLAIN, DEMO, MYSTERY]),
)
def test_open_records_give_mains_bytes(seed: int, forced: float, batch: int, text: str) -> None:
    lines = list(disturbed(text, 250, seed, forced))
    outcomes = run_floor(text, lines, seed, batch, open_rounds=True)
    assert outcomes["accepted"] > 0


@pytest.mark.parametrize("text", [PLAIN, DEMO, MYSTERY], ids=["plain", "demo", "mystery"])
def test_a_long_floor_open(text: str) -> None:
    """3,000 events in batches of 200 (tables open for many events of a batch), every outcome."""
    lines = list(disturbed(text, 3_000, 20261203, 0.3))
    outcomes = run_floor(text, lines, 7, 200, open_rounds=True)
    for outcome in ("accepted", "duplicate", "rejected", "heartbeat", "redelivered", "applied"):
        assert outcomes[outcome] > 0, outcomes


def _floor(count: int) -> tuple[OpenRoundProcessor, list[tuple[str, bytes]]]:
    config = load_floor_config(PLAIN, "floor.toml")
    raws = simulated(config, 5, 0.0, 0.0)
    lines = []
    for _ in range(count):
        raw = next(raws)
        lines.append((str(raw["table_id"]), json.dumps(raw, separators=(",", ":")).encode()))
    return OpenRoundProcessor(config, NAMES), lines


def test_an_open_table_forgets_ids_past_the_window_as_the_reference() -> None:
    """Each wager or decision of a long floor taken into a record opened from the reference's
    record before it (the window of 64 ids full): the sealed record is the reference's, its
    dict of ids too, and the id the window forgot is forgotten (`earlier` says None)."""
    processor, lines = _floor(1_500)
    records: dict[str, TableRecord] = {}
    grown = 0
    for offset, (table, line) in enumerate(lines):
        pos = SourcePos(NAMES.table_events, 0, offset, 1_796_000_000_000)
        before = records.get(table)
        ref = processor.process(before, table, line, pos)
        assert ref.record is not None
        if before is not None and len(before.recent) == RECENT_IDS:
            twin = table_record_from_bytes(table_record_to_bytes(before))
            done = processor.process_open(twin, table, line, pos)
            assert done.outputs == ref.outputs
            # the record opened is left as it was (the committed state, should the batch abort)
            assert table_record_to_bytes(twin) == table_record_to_bytes(before)
            if isinstance(done.record, OpenTable):
                grown += 1
                assert done.record.earlier(before.recent[0][0]) is None
                sealed = done.record.seal()
                assert sealed == ref.record
                assert sealed.ids == dict(ref.record.recent)
        records[table] = ref.record
    assert grown > 500
