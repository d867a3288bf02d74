"""The round lane's state record written from kept fragments (`streams.scaleout.table_bytes`)
against its reference bytes: every record of a simulated floor, decided input by input (the
cache sees each step) and read back from its bytes (new objects, equal values), odd text that
only the reference may write, rounds that start again, records older than the cache's, and a
full cache; and the fragments really kept (a record one wager longer encodes one wager)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from bench.workload import events, example_floor, to_line
from controller.model.errors import RuleViolation
from controller.model.table_events import DecisionMade, WagerPlaced, to_contract
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout import table_bytes as tb
from streams.scaleout import table_read
from streams.scaleout.open_table import event_of, read_open
from streams.scaleout.records import FAST_WRITER, SourcePos
from streams.scaleout.rounds import RoundProcessor
from streams.scaleout.table_record import (
    TableRecord,
    table_record_from_bytes,
    table_record_to_bytes,
)
from tests.streams.scaleout.procs_harness import disturbed
from tests.streams.scaleout.test_procs_differential import DEMO

NAMES = TopicNames("bytes")


def floor_records(count: int) -> Iterator[TableRecord]:
    """Each table record the round processor stores over ``count`` events of the example
    floor, in order (voids, hits and refusals among them)."""
    _, config = example_floor()
    process = RoundProcessor(config, NAMES).process
    records: dict[str, TableRecord] = {}
    for offset, raw in enumerate(events(config, count, 20261203)):
        key = str(raw["table_id"])
        result = process(records.get(key), key, to_line(raw), SourcePos("t", 0, offset, 1))
        if result.record is not None:
            records[key] = result.record
            yield result.record


@pytest.fixture(scope="module")
def records() -> list[TableRecord]:
    return list(floor_records(1_500))


def test_every_record_is_the_reference(records: list[TableRecord]) -> None:
    cache: tb.Fragments = {}
    rounds = sum(1 for r in records if r.table.round is not None and r.table.round.wagers)
    assert rounds > 1_000  # the cache met rounds with wagers
    for record in records:
        assert tb.table_bytes(record, cache) == tb.reference_bytes(record)
        assert table_record_to_bytes(record) == tb.reference_bytes(record)


def test_read_back_records_are_the_reference(records: list[TableRecord]) -> None:
    """A record restored from its bytes holds new event objects of equal value: the cache
    (by identity) encodes them again, to the same bytes."""
    cache: tb.Fragments = {}
    for record in records[::7]:
        again = table_record_from_bytes(tb.table_bytes(record, cache))
        assert tb.table_bytes(again, cache) == tb.reference_bytes(record)


def test_older_records_and_new_rounds(records: list[TableRecord]) -> None:
    """Records out of order (a batch dropped and decided again from older records, a table's
    rounds interleaved): each one still its reference."""
    cache: tb.Fragments = {}
    for record in [*records[::-1], *records[::3], *records[1::3]]:
        assert tb.table_bytes(record, cache) == tb.reference_bytes(record)


def _with_text(record: TableRecord, text: str) -> TableRecord:
    current = record.table.round
    assert current is not None
    assert current.wagers
    odd = dataclasses.replace(current.wagers[-1], occurred_at=text)
    rnd = dataclasses.replace(current, wagers=(*current.wagers[:-1], odd))
    return dataclasses.replace(record, table=dataclasses.replace(record.table, round=rnd))


@pytest.mark.parametrize("text", ["2026-12-03T10:00:00Ä", 'a"b\\c', "\x7f", "\ud800", "é\n"])
def test_text_only_the_reference_writes(records: list[TableRecord], text: str) -> None:
    """Text msgspec would write otherwise than json (escapes, non-ASCII, a lone surrogate):
    the reference's bytes, with the fragments cached or not."""
    record = next(r for r in records if r.table.round is not None and len(r.table.round.wagers) > 2)
    odd = _with_text(record, text)
    cache: tb.Fragments = {}
    for _ in range(2):
        assert tb.table_bytes(odd, cache) == tb.reference_bytes(odd)
    assert tb.table_bytes(record, cache) == tb.reference_bytes(record)


def test_a_longer_round_encodes_only_its_new_wager(
    records: list[TableRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fragments are kept: the record after one more wager encodes that wager alone
    (the reference encodes every wager of the round again)."""
    pairs = [
        (a, b)
        for a, b in itertools.pairwise(records)
        if a.table.table_id == b.table.table_id
        and a.table.round is not None
        and b.table.round is not None
        and len(a.table.round.wagers) >= 3
        and b.table.round.wagers[:-1] == a.table.round.wagers
    ]
    assert pairs
    encoded: list[Any] = []
    real = to_contract

    def counted(event: Any) -> dict[str, object]:
        encoded.append(event)
        return real(event)

    monkeypatch.setattr(tb, "to_contract", counted)
    first, second = pairs[0]
    cache: tb.Fragments = {}
    tb.table_bytes(first, cache)
    encoded.clear()
    assert tb.table_bytes(second, cache) == tb.reference_bytes(second)
    assert second.table.round is not None
    assert [e for e in encoded if isinstance(e, WagerPlaced)] == [second.table.round.wagers[-1]]


def test_a_full_cache_starts_again(
    records: list[TableRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tb, "MAX_TABLES", 4)
    cache: tb.Fragments = {}
    for record in records[:300]:
        assert tb.table_bytes(record, cache) == tb.reference_bytes(record)
        assert len(cache) <= 4 + 2


def test_fragments_cut_from_log_records_are_the_encoded_ones() -> None:
    """`contract_bytes` of each wager's and decision's log record (the native decoder's, as the
    round lane keeps it: `OpenTable.logs`) is `fragments`' encoding of its event, over a
    disturbed floor with forced jackpot hands (amounts, discards, every action); a record
    without the version where it belongs gives None (the event is then encoded)."""
    if table_read.HOT is None:
        pytest.skip("the native decoder is not built")
    cut = {WagerPlaced: 0, DecisionMade: 0}
    for _, line in disturbed(DEMO, 3_000, 20261204, 0.3):
        try:
            item, payload = read_open(line, table_read.HOT)
        except RuleViolation:  # a refused line: nothing to cut
            continue
        event = event_of(item)
        if payload is None or type(event) not in cut:
            continue
        assert isinstance(event, WagerPlaced | DecisionMade)
        encoded = FAST_WRITER.encode(to_contract(event))
        assert tb.contract_bytes(payload) == encoded, payload
        cut[type(event)] += 1
    assert min(cut.values()) > 500, cut
    version = b'{"event_id":"a","schema_version":1,"type":"wager_placed"}'
    assert tb.contract_bytes(version) == b'{"event_id":"a","type":"wager_placed"}'
    assert tb.contract_bytes(version.replace(b":1,", b":12,")) is None
    assert tb.contract_bytes(version.replace(b":1,", b":2,")) is None
    assert tb.contract_bytes(b'{"event_id":"a","type":"wager_placed"}') is None
    assert tb.contract_bytes(b'{"a":1,"schema_version":1}') is None
    assert tb.contract_bytes(version[:-1] + b',"x":1,"schema_version":1,"y":2}') is None
