"""`records.dumps` (msgspec where it is safe) writes exactly the bytes json writes.

Every record the worker produces or stores goes through it, and a redelivered input must give the
same bytes as the first delivery gave, whichever encoder wrote them (the stored records of
workers that ran main's code are read back and compared too)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from controller.model.state import TableState
from streams.scaleout.records import SourcePos, dumps, reference_dumps
from streams.scaleout.rounds import RECENT_IDS, TableRecord

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
