"""The patterns the door checks after decoding (`PATTERNS_AFTER_DECODE`) accept exactly what the
schema's patterns accept: the event id's three string methods, and each remembered text (asked
twice: the second answer comes from the memo)."""

from __future__ import annotations

import re
import string
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
