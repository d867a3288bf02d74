"""The round lane's open records (`streams.scaleout.open_table`) against main's processors.

`OpenRoundProcessor.process_open` grows a table's record in place across a batch and the batch's
decide seals it once: every output, outcome and record (the open one peeked at after every
input, `procs_harness.peek`) must be main's, byte for byte, through the harness's batches,
crashes, dropped batches and redeliveries: ``test_procs_differential`` runs its floors through
both lanes. Here: the window of recent ids, which those floors' retries (all recent) never
reach past."""

from __future__ import annotations

import json

import pytest

from controller.config.floor import load_floor_config
from controller.model.table_events import TableEvent, to_contract
from streams.scaleout import table_bytes, table_read
from streams.scaleout.open_rounds import OpenRoundProcessor
from streams.scaleout.open_table import OpenTable, sealed
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


def test_locks_settlements_and_openings_are_decided_on_the_open_table() -> None:
    """A floor's inputs through `process_open`, each table's record kept open as a batch keeps
    it: every output is the reference's, the record sealed after each input is the reference's,
    and the round's lock, settlement and the next round's opening are decided on the open table
    (`OpenRoundProcessor._kept`: the record stays open), not sealed for the reference. The
    frozen record the table was opened from is left as it was (an aborted batch's state)."""
    processor, lines = _floor(1_500)
    records: dict[str, TableRecord] = {}
    held: dict[str, TableRecord | OpenTable] = {}
    kept: dict[str, int] = {}
    for offset, (table, line) in enumerate(lines):
        pos = SourcePos(NAMES.table_events, 0, offset, 1_796_000_000_000)
        ref = processor.process(records.get(table), table, line, pos)
        assert ref.record is not None
        before = held.get(table)
        committed = None if before is None or isinstance(before, OpenTable) else before
        frozen = None if committed is None else table_record_to_bytes(committed)
        done = processor.process_open(before, table, line, pos)
        assert done.outcome == ref.outcome
        assert done.outputs == ref.outputs
        assert done.record is not None
        if committed is not None:
            assert table_record_to_bytes(committed) == frozen
        if isinstance(done.record, OpenTable):
            kind = json.loads(line)["type"]
            kept[kind] = kept.get(kind, 0) + 1
            if offset % 7 == 0:  # a batch's end now and then: sealed, decided on from frozen
                shut = held[table] = done.record.seal()
                assert shut == ref.record
                assert table_record_to_bytes(shut) == table_record_to_bytes(ref.record)
            else:
                held[table] = done.record
        else:
            held[table] = done.record
            assert done.record == ref.record
        records[table] = ref.record
    for table, record in held.items():  # the batch's end
        assert sealed(record) == records[table]
    for kind in ("round_opened", "wagers_locked", "round_settled"):
        assert kept.get(kind, 0) > 20, kept


def test_the_changelog_fragments_are_cut_from_the_grown_events_log_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A batch's tables sealed at its end: the wagers and decisions grown open are written to
    the changelog from their log records (`OpenTable.logs`, `table_bytes.prime`), none encoded
    again (`to_contract` not called), and the bytes are the reference's."""
    if table_read.HOT is None:
        pytest.skip("the native decoder is not built: no log records to cut")
    processor, lines = _floor(700)
    records: dict[str, TableRecord] = {}
    held: dict[str, TableRecord | OpenTable] = {}
    for offset, (table, line) in enumerate(lines):
        pos = SourcePos(NAMES.table_events, 0, offset, 1_796_000_000_000)
        ref = processor.process(records.get(table), table, line, pos)
        done = processor.process_open(held.get(table), table, line, pos)
        assert ref.record is not None
        assert done.record is not None
        records[table], held[table] = ref.record, done.record
    encoded: list[TableEvent] = []

    def counted(event: TableEvent) -> dict[str, object]:
        encoded.append(event)
        return to_contract(event)

    monkeypatch.setattr(table_bytes, "to_contract", counted)
    written = 0
    for table, record in held.items():
        if isinstance(record, OpenTable):
            shut = record.seal()
            assert shut.table.round is not None
            written += len(shut.table.round.wagers) + len(shut.table.round.decisions)
            assert table_record_to_bytes(shut) == table_bytes.reference_bytes(records[table])
    assert written > 20
    assert encoded == []


def _again(line: bytes) -> bytes:
    """The same event under a new id and the next seq: a device sending it a second time."""
    raw = json.loads(line)
    raw["event_id"], raw["seq"] = f"{raw['event_id']}-again", raw["seq"] + 1
    return json.dumps(raw, separators=(",", ":")).encode()


def test_a_second_lock_or_settlement_of_a_round_gets_the_references_answer() -> None:
    """A lock sent again under a new id once the round is locked, and a settlement sent again
    once it is settled (the round no longer open): the open table leaves each to the reference,
    which refuses it. Tried on every lock and settlement of a floor, each against the record as
    it stands then (not kept)."""
    processor, lines = _floor(600)
    records: dict[str, TableRecord] = {}
    tried: dict[str, int] = {}
    for offset, (table, line) in enumerate(lines):
        pos = SourcePos(NAMES.table_events, 0, offset, 1_796_000_000_000)
        ref = processor.process(records.get(table), table, line, pos)
        assert ref.record is not None
        records[table] = ref.record
        kind = json.loads(line)["type"]
        if kind not in ("wagers_locked", "round_settled") or ref.outcome != "accepted":
            continue
        again, after = _again(line), SourcePos(NAMES.table_events, 0, offset + 1, pos.timestamp_ms)
        want = processor.process(ref.record, table, again, after)
        got = processor.process_open(_twin(ref.record), table, again, after)
        assert (got.outcome, got.outputs) == (want.outcome, want.outputs)
        assert want.outcome == "rejected"
        tried[kind] = tried.get(kind, 0) + 1
    assert min(tried.values(), default=0) > 5, tried


def _twin(record: TableRecord) -> TableRecord:
    """A copy of ``record`` through its changelog bytes (the open path must not touch it)."""
    return table_record_from_bytes(table_record_to_bytes(record))
