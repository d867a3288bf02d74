"""The replay's struct reader (`streams.codec.records`) accepts only what `decode` accepts, with the
same values; amounts are `parse_cents`'s; a log folded through it ends in the reference's state."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from itertools import islice
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.fast import Session
from controller.model.errors import InvalidEvent
from controller.model.events import Event, FixedAwarded
from controller.model.money import format_cents, parse_cents
from streams.adapters.memory import MemoryLog
from streams.codec import (
    decode,
    encode,
    fold_into,
    fold_log,
    fold_log_by_reference,
    record_key,
    records,
)
from streams.ports import LogRecord, StoredRecord
from tests.controller.fast.differential import disturbed_floor, run_both, snapshot_bytes

LOG = run_both(islice(disturbed_floor(4_000, seed=21), 4_200), check_every=10_000)[1]
PAYLOADS = [encode(event) for event in LOG]
EVENT_OF = {struct: event for struct, event, _ in records._PLAN}


def _read(payload: bytes) -> records.Record | None:
    try:
        return records.read_record(payload)
    except msgspec.DecodeError:
        return None


def _same(struct: records.Record, event: Event) -> bool:
    """The struct stands for ``event``: its type, and every field of the event equal (and of the
    same type: an amount is an int either way)."""
    if EVENT_OF[type(struct)] is not type(event):
        return False
    for field in fields(event):
        ours, theirs = getattr(struct, field.name), getattr(event, field.name)
        if field.name == "seats":  # the contract's object, as `_seat_cards` reads it
            ours = tuple(sorted((int(seat), cards) for seat, cards in ours.items()))
        if ours != theirs or not isinstance(ours, type(theirs)):
            return False
    return True


def test_the_reader_is_on() -> None:
    """Every struct holds its event's fields: the fast reading is not silently off."""
    assert records.SHAPES_MATCH


def test_an_event_that_grows_a_field_turns_the_reader_off() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Grown:
        meter_id: str
        amount_cents: int
        hit_id: str = ""
        new_field: int = 0

    @dataclass(frozen=True, kw_only=True)
    class NewDefault:
        meter_id: str
        table_id: str
        round_id: str
        seat: int
        wager: str
        on: str
        hand: str
        cards: tuple[str, ...]
        amount_cents: int
        occurred_at: str
        hit_id: str = "?"

    assert not records._same_shape(records.Fixed, Grown)
    assert not records._same_shape(records.Fixed, NewDefault)
    assert records._same_shape(records.Fixed, FixedAwarded)


def test_every_logged_record_reads_the_same() -> None:
    kinds: set[str] = set()
    for payload in PAYLOADS:
        struct = _read(payload)
        if struct is not None:
            kinds.add(type(struct).__name__)
            assert _same(struct, decode(payload)), payload
    assert kinds == {s.__name__ for s in EVENT_OF}


_DROP = object()
DAMAGE_VALUES: list[object] = [
    *(True, 1.5, -1, 0, "", "x", None, [], {}, ["As", 3], 10**30),
    *("1.005", "0.00", "01.00", "7.50", "wager_placed", "decision"),
    *({"1": ["As"]}, {"x": ["As"]}, {"²": []}, {"01": []}),
]
DAMAGE: st.SearchStrategy[object] = st.sampled_from(DAMAGE_VALUES)


def _damaged(raw: dict[str, Any], data: st.DataObject) -> bytes:
    key = data.draw(st.sampled_from([*sorted(raw), "extra"]), label="key")
    if data.draw(st.booleans(), label="drop") and key in raw:
        del raw[key]
    else:
        raw[key] = data.draw(DAMAGE, label="value")
    return json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(PAYLOADS), st.data())
def test_a_damaged_record_is_read_only_if_decode_reads_it_the_same(
    payload: bytes, data: st.DataObject
) -> None:
    damaged = _damaged(json.loads(payload), data)
    struct = _read(damaged)
    if struct is not None:  # refused: `decode` reads it (fold_into), so nothing to compare
        assert _same(struct, decode(damaged)), damaged


def _one_of_each_kind() -> list[bytes]:
    firsts: dict[type, bytes] = {}
    for payload in PAYLOADS:
        struct = _read(payload)
        if struct is not None:
            firsts.setdefault(type(struct), payload)
    return list(firsts.values())


@pytest.mark.parametrize("payload", _one_of_each_kind(), ids=lambda p: json.loads(p)["type"])
def test_every_damage_to_every_field_is_read_only_as_decode_reads_it(payload: bytes) -> None:
    """Each key of a record of each kind dropped or given each damaging value, one at a time."""
    raw = json.loads(payload)
    for key in [*raw, "extra"]:
        for value in [_DROP, *DAMAGE_VALUES]:
            damaged = dict(raw)
            if value is _DROP:
                damaged.pop(key, None)
            else:
                damaged[key] = value
            text = json.dumps(damaged, sort_keys=True, separators=(",", ":")).encode()
            struct = _read(text)
            if struct is not None:
                assert _same(struct, decode(text)), text


MONEY_TEXT = st.one_of(
    st.integers(-(10**13), 10**13).map(format_cents),
    st.from_regex(r"[-+ 0-9]{0,14}(\.[0-9]{0,3})?\n?", fullmatch=True),
    st.text(max_size=16),
)


WAGER = json.loads(next(p for p in PAYLOADS if b'"wager_placed"' in p))
DECISION = json.loads(next(p for p in PAYLOADS if b'"amount"' in p and b'"decision"' in p))


@settings(max_examples=1_000, deadline=None)
@given(MONEY_TEXT, st.sampled_from([WAGER, DECISION]))
def test_an_amount_is_read_as_parse_cents_reads_it(text: str, record: dict[str, Any]) -> None:
    """The reader's amount check (`records.AMOUNT`, in msgspec) accepts exactly what
    `parse_cents` accepts, and the amount then reads as its value (first and remembered)."""
    try:
        expected: int | None = parse_cents(text)
    except InvalidEvent:
        expected = None
    payload = json.dumps({**record, "amount": text}, sort_keys=True).encode()
    for _ in range(2):
        struct = _read(payload)
        if expected is None:
            assert struct is None
        else:
            assert isinstance(struct, records.Wager | records.Decision)
            assert struct.amount_cents == expected
            assert type(struct.amount_cents) is int


def test_a_folded_log_ends_in_the_reference_state() -> None:
    """The whole path a replay takes (`fold_log`: structs for the hot records, `decode` for the
    rest), against the readable fold, as values and as snapshot bytes."""
    log = MemoryLog()
    log.append([LogRecord(record_key(e), p) for e, p in zip(LOG, PAYLOADS, strict=True)])
    fast, position = fold_log(log)
    reference, reference_position = fold_log_by_reference(log)
    assert position == reference_position == len(LOG)
    assert fast == reference
    assert snapshot_bytes(fast) == snapshot_bytes(reference)
    resumed = Session()
    for after in range(0, len(LOG), 1_000):  # a restart folds the tail onto what it has
        fold_into(resumed, _Prefix(log, after + 1_000), after)
    assert resumed.state() == reference


class _Prefix:
    def __init__(self, log: MemoryLog, end: int) -> None:
        self._records = list(log.read())[:end]

    def read(self, after: int = 0) -> list[StoredRecord]:
        return self._records[after:]


@pytest.mark.parametrize("after", [0, 7])
def test_a_fold_of_nothing_new_stays_where_it_was(after: int) -> None:
    session = Session()
    assert fold_into(session, _Prefix(MemoryLog(), 0), after) == after
    assert session.state() == Session().state()
