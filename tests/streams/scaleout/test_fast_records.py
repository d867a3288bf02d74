"""`records.dumps` (msgspec where it is safe) writes exactly the bytes json writes.

Every record the worker produces or stores goes through it, and a redelivered input must give the
same bytes as the first delivery gave, whichever encoder wrote them (the stored records of
workers that ran main's code are read back and compared too)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.claims import ContributionClaim, HitClaim, ReversalClaim
from controller.meter import MeterClaim
from controller.model.errors import InvalidEvent
from controller.model.state import TableState
from streams.scaleout import meter_ops
from streams.scaleout.meter_ops import (
    claim_bytes,
    claim_op,
    op_from_bytes,
    op_to_bytes,
    reference_op_from_bytes,
)
from streams.scaleout.records import SourcePos, dumps, reference_dumps
from streams.scaleout.table_record import RECENT_IDS, TableRecord

TEXT = st.text(st.characters(codec=None, exclude_categories=[]), max_size=12)  # surrogates too
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


@given(VALUES)
def test_dumps_writes_jsons_bytes(value: object) -> None:
    expected = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
    assert reference_dumps(value) == expected
    assert dumps(value) == expected


def test_escapes_and_control_characters_are_jsons() -> None:
    value = {"z": 'a"b\\c\x7f\x00\u00e9\ud800', "a": ["\t", "</script>"], "é": 1}
    assert dumps(value) == json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


PAIRS = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.sampled_from(["1", "2", "3"])), max_size=70
)


@given(PAIRS, st.sampled_from("abcdefghij"), st.sampled_from("abcdefghij"))
def test_recent_ids_answer_as_a_scan_back_does(
    pairs: list[tuple[str, str]], new: str, ask: str
) -> None:
    """`TableRecord.earlier` reads a dict of the recent ids and `after` carries it on; both must
    answer as main's scan of the pairs, newest first, even for pairs this code never writes (an
    id twice, more than `RECENT_IDS`)."""
    pos = SourcePos("t", 0, 5)
    record = TableRecord(TableState(table_id="t1"), 0, 4, tuple(pairs))
    assert record.earlier(ask) == _scanned(record.recent, ask)
    if record.earlier(new) is not None:
        return  # the processor never accepts an id it knows
    nxt = record.after(record.table, pos, new, "9")
    assert nxt.recent == (*pairs, (new, "9"))[-RECENT_IDS:]
    assert nxt.earlier(ask) == _scanned(nxt.recent, ask)
    assert nxt.after(nxt.table, pos, "z", "8").earlier(ask) == _scanned(
        (*nxt.recent, ("z", "8"))[-RECENT_IDS:], ask
    )


def _scanned(recent: tuple[tuple[str, str], ...], event_id: str) -> str | None:
    for known, digest in reversed(recent):
        if known == event_id:
            return digest
    return None


INTS = st.integers(-(2**70), 2**70)
CLAIMS = st.one_of(
    st.builds(
        ContributionClaim,
        meter_id=TEXT,
        table_id=TEXT,
        round_id=TEXT,
        seat=INTS,
        wager=TEXT,
        on=TEXT,
        wager_cents=INTS,
        primary_sub=INTS,
        reserve_sub=INTS,
        occurred_at=TEXT,
    ),
    st.builds(
        ReversalClaim,
        meter_id=TEXT,
        table_id=TEXT,
        round_id=TEXT,
        primary_sub=INTS,
        reserve_sub=INTS,
        count=INTS,
        reason=TEXT,
        occurred_at=TEXT,
    ),
    st.builds(
        HitClaim,
        meter_id=TEXT,
        table_id=TEXT,
        round_id=TEXT,
        wager=TEXT,
        on=TEXT,
        hand=TEXT,
        cards=st.tuples(TEXT, TEXT),
        share=st.fractions(min_value=0, max_value=1),
        recipients=st.tuples(INTS),
        occurred_at=TEXT,
        source_seq=INTS,
    ),
)


@given(CLAIMS, INTS, INTS)
def test_a_claims_bytes_are_its_operations(claim: MeterClaim, seq: int, index: int) -> None:
    """`claim_bytes` (the round processor's claims, written without the `MeterOp`) gives
    `op_to_bytes`'s bytes for any claim, escapes and lone surrogates included."""
    expected = op_to_bytes(claim_op(claim, seq, index))
    assert claim_bytes(claim, seq, index) == expected
    assert json.loads(expected)["claim"]["meter_id"] == claim.meter_id


def test_a_contributions_bytes_are_written_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain path is taken (not only the fallback) and writes every field of the claim."""
    monkeypatch.setattr(meter_ops, "op_to_bytes", None)  # the fallback would fail
    claim = ContributionClaim(meter_id="m", table_id="t", round_id="r", seat=2, wager="ante",
                              on="pair_plus", wager_cents=500, primary_sub=10, reserve_sub=1,
                              occurred_at="2026-12-02T00:00:00Z")  # fmt: skip
    body = json.loads(claim_bytes(claim, 7, 3))
    assert body == {
        "claim": {"meter_id": "m", "occurred_at": "2026-12-02T00:00:00Z", "on": "pair_plus",
                  "primary_sub": 10, "reserve_sub": 1, "round_id": "r", "seat": 2,
                  "table_id": "t", "wager": "ante", "wager_cents": 500},
        "index": 3, "kind": "contribution", "meter_id": "m",
        "occurred_at": "2026-12-02T00:00:00Z", "table_id": "t", "table_seq": 7,
    }  # fmt: skip


@given(PAIRS, st.sampled_from("abcdefghij"), st.sampled_from("abcdefghij"))
def test_a_record_that_handed_its_ids_on_still_answers(
    pairs: list[tuple[str, str]], new: str, ask: str
) -> None:
    """`after` and `stamped` hand the dict of ids on to the next record, which changes it: the
    record they came from (a stored one, read again when a decided batch is dropped) must still
    answer from its own pairs, and never see the next record's id."""
    pos = SourcePos("t", 0, 5)
    record = TableRecord(TableState(table_id="t1"), 0, 4, tuple(pairs))
    record.earlier(ask)  # its dict built
    if record.earlier(new) is not None:
        return
    stamped = record.stamped(pos)
    nxt = stamped.after(stamped.table, pos, new, "9")
    assert nxt.earlier(new) == "9"
    for old in (record, stamped):
        assert old.earlier(new) is None
        assert old.earlier(ask) == _scanned(old.recent, ask)
    again = record.after(record.table, pos, new, "7")  # decided again from the stored record
    assert again.earlier(new) == "7"
    assert again.earlier(ask) == _scanned(again.recent, ask)
    assert nxt.earlier(new) == "9"


def _read_both(payload: bytes) -> None:
    """`op_from_bytes` answers as `reference_op_from_bytes`: the same operation (by repr: a
    True is not a 1) or the same refusal."""
    try:
        expected: object = repr(reference_op_from_bytes(payload))
    except InvalidEvent as exc:
        expected = ("refused", str(exc))
    try:
        got: object = repr(op_from_bytes(payload))
    except InvalidEvent as exc:
        got = ("refused", str(exc))
    assert got == expected


@given(CLAIMS, INTS, INTS)
def test_an_operation_reads_back_as_the_reference_reads_it(
    claim: MeterClaim, seq: int, index: int
) -> None:
    payload = claim_bytes(claim, seq, index)
    _read_both(payload)
    assert op_from_bytes(payload).claim == claim


OP_KEYS = ("meter_id", "kind", "table_id", "table_seq", "index", "occurred_at", "claim")
CLAIM_KEYS = tuple(f.name for f in dataclasses.fields(ContributionClaim))
ODD = st.none() | st.booleans() | INTS | TEXT | st.floats(allow_nan=False) | st.just([1])


@given(
    st.dictionaries(st.sampled_from(OP_KEYS), ODD | st.just("contribution")),
    st.dictionaries(st.sampled_from((*CLAIM_KEYS, "extra")), ODD),
    st.booleans(),
)
def test_a_damaged_operation_is_read_as_the_reference_reads_it(
    top: dict[str, object], fields: dict[str, object], whole: bool
) -> None:
    """Any key missing, added or of another JSON type, at either level: the struct reader
    leaves it to the reference, which accepts or refuses it as before."""
    good = ContributionClaim(meter_id="m", table_id="t", round_id="r", seat=2, wager="ante",
                             on="own", wager_cents=500, primary_sub=10, reserve_sub=1,
                             occurred_at="z")  # fmt: skip
    body = json.loads(claim_bytes(good, 4, 0))
    if whole:
        body["claim"].update(fields)
    else:
        body.update(top)
    _read_both(json.dumps(body).encode())
    # unescaped; a lone surrogate (TEXT draws them) kept as the bytes a damaged record would hold
    _read_both(json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def test_the_struct_reader_is_used_for_a_contribution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meter_ops, "reference_op_from_bytes", None)  # the fallback would fail
    good = ContributionClaim(meter_id="m", table_id="t", round_id="r", seat=2, wager="ante",
                             on="own", wager_cents=500, primary_sub=10, reserve_sub=1,
                             occurred_at="z")  # fmt: skip
    assert op_from_bytes(claim_bytes(good, 4, 0)) == claim_op(good, 4, 0)
