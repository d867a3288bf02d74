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
from controller.model.table_events import WagerPlaced, to_contract
from streams.adapters.kafka.topics import TopicNames
from streams.scaleout import table_bytes as tb
from streams.scaleout.records import SourcePos
from streams.scaleout.rounds import RoundProcessor
from streams.scaleout.table_record import (
    TableRecord,
    table_record_from_bytes,
    table_record_to_bytes,
)

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
