"""The round lane's open records (`streams.scaleout.open_table`) against main's processors.

`OpenRoundProcessor.process_open` grows a table's record in place across a batch and the batch's
decide seals it once: every output, outcome and record (the open one peeked at after every
input, `procs_harness.peek`) must be main's, byte for byte, through the harness's batches,
crashes, dropped batches and redeliveries: ``test_procs_differential`` runs its floors through
both lanes. Here: the window of recent ids, which those floors' retries (all recent) never
reach past."""

from __future__ import annotations

import json

from controller.config.floor import load_floor_config
from streams.scaleout.open_rounds import OpenRoundProcessor
from streams.scaleout.open_table import OpenTable
from streams.scaleout.records import SourcePos
from streams.scaleout.rounds import table_record_from_bytes, table_record_to_bytes
from streams.scaleout.table_record import RECENT_IDS, TableRecord
from tests.controller.fast.differential import simulated
from tests.streams.scaleout.procs_harness import NAMES
from tests.streams.scaleout.test_procs_differential import PLAIN


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
