"""`vouched_ahead_reason` (the hot lines' received-time bound without a parse per line) gives
`ahead_reason`'s answer for every ``occurred_at`` the door vouches for and any bound."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from streams.door.struct_checks import _instant_ok
from streams.embedded.received import ahead_reason, vouched_ahead_reason

_BASE = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
_ZONES = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
)


@st.composite
def instants(draw: st.DrawFn) -> str:
    """Texts of the contract's shape near `_BASE` (seconds apart, fractions of 1-9 digits, a
    ``Z`` or an offset), some of them no real instant (day 31 of a short month, hour 24)."""
    moment = _BASE + timedelta(seconds=draw(st.integers(-5, 5)))
    head = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if draw(st.booleans()):
        head = head[:8] + draw(st.sampled_from(["29", "30", "31"])) + head[10:]
    if draw(st.integers(0, 9)) == 0:
        head = head[:11] + draw(st.sampled_from(["23", "24", "00"])) + head[13:]
    digits = draw(st.integers(0, 9))
    fraction = (
        "" if digits == 0 else "." + draw(st.text("0123456789", min_size=digits, max_size=digits))
    )
    zone = draw(st.sampled_from(["Z", "Z", "Z", "+00:00", "+05:30", "-08:00"]))
    return head + fraction + zone


@given(
    instants(),
    st.integers(-6_000_000, 6_000_000),
    _ZONES,
    st.booleans(),
)
def test_the_same_answer_as_ahead_reason(
    text: str, micros: int, zone: timezone, none: bool
) -> None:
    latest = None if none else (_BASE + timedelta(microseconds=micros)).astimezone(zone)
    if _instant_ok(text):  # the door vouches only for these
        assert vouched_ahead_reason(text, latest) == ahead_reason(text, latest)


def test_a_bound_asked_again_and_then_another() -> None:
    early = _BASE.astimezone(timezone(timedelta(hours=3)))
    late = early + timedelta(seconds=10)
    text = "2026-11-29T12:00:05.000001Z"
    assert vouched_ahead_reason(text, early) == ahead_reason(text, early) != ""
    assert vouched_ahead_reason(text, late) == "" == ahead_reason(text, late)
    assert vouched_ahead_reason(text, early) != ""
