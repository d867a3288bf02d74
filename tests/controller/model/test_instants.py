"""One RFC 3339 reader for every part: an offset is required, Z and ±hh:mm both read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.model.instants import aware_instant, parse_instant


def test_z_and_an_offset_name_the_same_instant() -> None:
    utc = parse_instant("2026-11-29T16:00:00Z")
    new_york = parse_instant("2026-11-29T11:00:00-05:00")
    assert utc == new_york
    assert utc.utcoffset() == timedelta(0)
    assert new_york.utcoffset() == timedelta(hours=-5)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2026-11-29T11:00:00", "has no offset"),
        ("29/11/2026 11:00", "is not RFC 3339"),
        ("", "is not RFC 3339"),
    ],
)
def test_a_time_without_an_instant_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_instant(text)
    assert aware_instant(text) is None


@given(
    st.datetimes(timezones=st.just(UTC)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_every_written_aware_time_reads_back_as_the_same_instant(
    moment: datetime, offset_minutes: int
) -> None:
    zone = timezone(timedelta(minutes=offset_minutes))
    try:
        local = moment.astimezone(zone)
    except OverflowError:  # year 1 or 9999 pushed off the calendar by the offset
        return
    assert aware_instant(local.isoformat()) == moment
