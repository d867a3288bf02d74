"""The patterns the door checks after decoding (`PATTERNS_AFTER_DECODE`) accept exactly what the
schema's patterns accept: the event id's three string methods, and each remembered text (asked
twice: the second answer comes from the memo)."""

from __future__ import annotations

import re
import string
from datetime import datetime
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from streams.door.contract_structs import PATTERNS_AFTER_DECODE, WagerPlacedStruct
from streams.door.struct_checks import after_decode_checks

WAGER: dict[str, Any] = {
    "event_id": "tcp-1:2",
    "table_id": "tcp-1",
    "round_id": "tcp-1-R1",
    "seq": 2,
    "occurred_at": "2026-12-02T03:00:00Z",
    "seat": 1,
    "wager": "ante",
    "amount": "5.00",
}
#: Near misses: the characters each pattern is about (letters, digits, ``._-``) and the ones just
#: outside (space, tab, DEL, quote, tilde, a non-ASCII letter, upper case, a second dot).
NEAR = string.ascii_letters + string.digits + '._-_ \t\x7f"~!é'
texts = st.one_of(
    st.text(NEAR, min_size=1, max_size=8),
    st.text(min_size=1, max_size=8),
    st.from_regex(r"(0|[1-9][0-9]{0,9})\.[0-9]{1,3}", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
    st.from_regex(r"[!-~]{1,6}", fullmatch=True),
)


@settings(max_examples=1_000)
@example("event_id", "a b")  # printable ASCII, but a space
@example("event_id", "tcp\x7f")
@example("table_id", "tcp 1")
@example("round_id", "r.1")
@example("amount", "5.0")
@example("amount", "05.00")
@example("wager", "Ante")
@given(st.sampled_from(sorted(PATTERNS_AFTER_DECODE)), texts)
def test_a_field_checked_after_decoding_passes_exactly_when_its_pattern_matches(
    field: str, text: str
) -> None:
    event = WagerPlacedStruct(**(WAGER | {field: text}))  # built, not decoded: nothing checked
    expected = re.match(PATTERNS_AFTER_DECODE[field], text) is not None
    assert after_decode_checks(event) is expected, (field, text)
    assert after_decode_checks(event) is expected, (field, text)  # now from the memo, if matched


def _reference_instant(text: str) -> bool:
    """The schema's pattern and streams.door.validation's calendar check (the schema door's)."""
    if re.match(PATTERNS_AFTER_DECODE["occurred_at"], text) is None:
        return False
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_INSTANT = PATTERNS_AFTER_DECODE["occurred_at"].removeprefix("^").removesuffix(r"\Z")
#: Instant-like texts: each part drawn in range, just outside it, or of the wrong length or kind.
_DIGITS = st.text("0123456789", min_size=1, max_size=5)
_NUMBERS = st.one_of(
    st.integers(0, 99).map(lambda n: f"{n:02d}"),
    _DIGITS,
    st.sampled_from(["", "a", "\u0663", " 1"]),
)
_SEPARATORS = st.sampled_from(["-", ":", "T", "t", " ", ".", "", "Z"])
_OFFSETS = st.one_of(
    st.sampled_from(["Z", "z", "", "+00:00", "-00:00", "+24:00", "+23:59", "+23:60", "+00:99"]),
    st.tuples(st.sampled_from("+-Z "), _NUMBERS, st.sampled_from(":."), _NUMBERS).map("".join),
)


@st.composite
def instant_like(draw: st.DrawFn) -> str:
    year = draw(st.one_of(st.integers(0, 9999).map(lambda n: f"{n:04d}"), _DIGITS))
    parts = [year]
    for separator in ("-", "-", "T", ":", ":"):
        parts.append(draw(st.one_of(st.just(separator), _SEPARATORS)))
        parts.append(draw(_NUMBERS))
    fraction = draw(st.one_of(st.just(""), st.text("0123456789", max_size=11)))
    parts.append(draw(st.sampled_from([".", "", ","])) + fraction if fraction else "")
    parts.append(draw(_OFFSETS))
    parts.append(draw(st.sampled_from(["", "", "", "\n", "Z", "0"])))
    return "".join(parts)


@settings(max_examples=3_000)
@example("2026-11-29T12:00:08.805Z")
@example("2026-02-29T00:00:00Z")  # no Feb 29 in 2026
@example("2024-02-29T23:59:59.123456789+23:59")
@example("0000-01-01T00:00:00Z")
@example("2026-11-29T12:00:60Z")
@example("2026-11-29T24:00:00Z")
@example("2026-11-29T12:00:08+24:00")
@example("2026-11-29T12:00:08+00:99")  # fromisoformat takes 99 minutes: so must the door
@example("2026-11-29T12:00:08.Z")
@example("2026-11-29T12:00:08.1234567890Z")
@example("2026-11-29T12:00:08")
@example("2026-11-29T12:00:08Z\n")
@example("2026-11-29T12:00:0+00:00")
@given(st.one_of(instant_like(), st.text(max_size=30), st.from_regex(_INSTANT, fullmatch=True)))
def test_an_instant_passes_exactly_when_the_pattern_matches_and_the_calendar_has_it(
    text: str,
) -> None:
    event = WagerPlacedStruct(**(WAGER | {"occurred_at": text}))
    expected = _reference_instant(text)
    assert after_decode_checks(event) is expected, text
    assert after_decode_checks(event) is expected, text  # now from the memo of its parts
