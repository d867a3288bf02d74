"""Proven equal: a log row's tail chained and packed natively (``streams/native/src/tail.rs``)
against the Python path, `streams.adapters.sqlite_rows._link_tail` (`streams.adapters.chain.
link` for each record, `ENCODE_TAIL` for the blob): the same chain hash and the same bytes for
any tail, its lengths across every MessagePack header's bounds (fixarray/array16, fixstr/str8/
str16, bin8/bin16/bin32), any text (non-ASCII, controls), any position; and what it refuses
(a record that is not ``(str, str, bytes)``, a lone surrogate) it refuses as the Python path
does, by raising (nothing is appended).
"""

from __future__ import annotations

import hashlib
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streams import native
from streams.adapters.sqlite_rows import ENCODE_TAIL, Tail, _link_tail, tail_of

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")
LINK = None if BUILT is None else partial(BUILT.link_tail, hashlib.sha256)
#: lengths at and around each header's bound (31/32 fixstr, 255/256 8-bit, 65535/65536 16-bit)
_SIZES = st.sampled_from([0, 1, 31, 32, 255, 256, 65535, 65536]) | st.integers(0, 400)
_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)


@st.composite
def _long_text(draw: st.DrawFn) -> str:
    return draw(_TEXT) + "k" * draw(_SIZES)


_RECORD = st.tuples(_TEXT | _long_text(), _TEXT | _long_text(), _SIZES.map(lambda n: b"x" * n))


@settings(max_examples=150, deadline=None)
@given(
    tail=st.lists(_RECORD, max_size=20),
    previous=st.binary(min_size=32, max_size=32),
    head=st.integers(1, 2**63 - 2**10),
)
def test_the_native_tail_is_the_python_tail(tail: Tail, previous: bytes, head: int) -> None:
    assert LINK is not None
    hashed, blob = LINK(previous, head, tail)
    expected_hash, expected_blob = _link_tail(previous, head, tail)
    assert hashed == expected_hash
    assert type(blob) is bytearray  # bound by sqlite3 without an adapter lookup
    assert bytes(blob) == bytes(expected_blob) == ENCODE_TAIL(tail)
    assert tail_of(head, bytes(blob)) == tail


def test_an_array_of_sixteen_or_more_and_plain_records() -> None:
    assert LINK is not None
    for count in (15, 16, 17, 300):
        tail = [("meter-1", "2026-12-03T10:00:00Z", b'{"a":1}')] * count
        assert LINK(bytes(32), 7, tail) == _link_tail(bytes(32), 7, tail)


@pytest.mark.parametrize(
    "record",
    [
        ("k", "t"),
        ("k", "t", "not bytes"),
        (1, "t", b"p"),
        ("k\ud800", "t", b"p"),
        ["k", "t", b"p", 1],
    ],
)
def test_what_the_python_path_refuses_is_refused(record: object) -> None:
    assert LINK is not None
    tail = [("k", "t", b"p"), record]
    with pytest.raises((TypeError, ValueError, AttributeError)):
        _link_tail(bytes(32), 1, tail)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError)):
        LINK(bytes(32), 1, tail)
