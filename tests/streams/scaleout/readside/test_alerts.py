"""The contribution-rate alert: hand-worked hours against a band around the trailing mean, the
floor's event-time watermark, and which hours are closed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from streams.scaleout.readside.aggregate import Tally
from streams.scaleout.readside.alerts import Band, alerts_for, check, closed_hours, floor_watermark
from streams.scaleout.readside.fold import Aggregator, Surveillance
from tests.streams.scaleout.readside import records as r

BAND = Band(low=Fraction(1, 4), high=Fraction(4), history=6, min_history=3)


def hour(contributed: int, rounds: int = 10, contributions: int | None = None) -> Tally:
    count = (1 if contributed else 0) if contributions is None else contributions
    return Tally(rounds=rounds, contributions=count, contributed_sub=contributed)


def test_an_hour_inside_the_band_raises_nothing() -> None:
    before = [hour(1_000), hour(1_000), hour(1_000)]  # usual: 1,000
    assert check("t", "H", hour(250), before, BAND) is None  # exactly 1/4: not below
    assert check("t", "H", hour(4_000), before, BAND) is None  # exactly 4x: not above


def test_below_and_above_the_band_around_the_trailing_mean() -> None:
    before = [hour(900), hour(1_000), hour(1_100), hour(0, rounds=0)]  # the idle hour: not usual
    low = check("t", "H", hour(249), before, BAND)
    assert low is not None
    assert (low.reason, low.usual_sub, low.alert_id) == ("below_usual", Fraction(1_000), "t@H")
    high = check("t", "H", hour(4_001), before, BAND)
    assert high is not None
    assert high.reason == "above_usual"
    assert high.to_json()["usual_sub"] == 1_000


def test_a_stuck_sensor_plays_rounds_and_contributes_nothing() -> None:
    before = [hour(500)]  # too little history for a usual rate, but the table contributes
    alert = check("t", "H", hour(0, rounds=12), before, BAND)
    assert alert is not None
    assert (alert.reason, alert.rounds, alert.usual_sub) == (
        "no_contributions_while_playing",
        12,
        None,
    )
    assert alert.to_json()["usual_sub"] is None


def test_a_table_that_never_contributes_or_does_not_play_is_not_alerted() -> None:
    assert check("t", "H", hour(0, rounds=12), [hour(0)] * 6, BAND) is None  # no progressive
    assert check("t", "H", hour(0, rounds=0), [hour(1_000)] * 6, BAND) is None  # closed table


def test_the_usual_rate_needs_min_history_playing_hours() -> None:
    before = [hour(1_000), hour(1_000)]
    assert check("t", "H", hour(100_000), before, BAND) is None


@given(
    st.lists(st.integers(1, 10**12), min_size=3, max_size=6),
    st.integers(1, 10**14),  # 0 is the stuck-sensor rule, above
)
def test_the_band_is_exact_integer_arithmetic(history: list[int], current: int) -> None:
    alert = check("t", "H", hour(current), [hour(h) for h in history], BAND)
    total, n = sum(history), len(history)
    if current * n * 4 < total:  # below 1/4 of the mean, in integers
        assert alert is not None
        assert alert.reason == "below_usual"
    elif current * n > 4 * total:
        assert alert is not None
        assert alert.reason == "above_usual"
    else:
        assert alert is None


def test_the_floor_watermark_waits_for_the_slowest_busy_partition() -> None:
    t = datetime(2026, 11, 29, 12, tzinfo=UTC)
    seen = {0: (t, 100.0), 1: (t + timedelta(hours=2), 100.0)}
    assert floor_watermark(seen, now=101.0, idle_s=60) == t
    quiet = {0: (t, 10.0), 1: (t + timedelta(hours=2), 100.0)}  # partition 0 read nothing lately
    assert floor_watermark(quiet, now=101.0, idle_s=60) == t + timedelta(hours=2)
    assert floor_watermark({0: (t, 1.0)}, now=1_000.0, idle_s=60) == t
    assert floor_watermark({}, now=0.0, idle_s=60) is None


def test_an_hour_closes_grace_after_its_end_and_is_checked_once() -> None:
    hourly = {("t", "2026-11-29T11:00:00Z"): hour(1), ("t", "2026-11-29T12:00:00Z"): hour(1)}
    end = datetime(2026, 11, 29, 12, 5, tzinfo=UTC)
    assert closed_hours(hourly, end - timedelta(seconds=1), BAND) == []
    assert closed_hours(hourly, end, BAND) == [("t", "2026-11-29T11:00:00Z")]
    _found, checked = alerts_for(hourly, end, BAND)
    assert alerts_for(hourly, end, BAND, frozenset(checked)) == ([], [])


def test_surveillance_raises_a_stuck_table_once_its_hour_closed_on_every_partition() -> None:
    store: dict[str, dict[str, int]] = {}
    aggregator = Aggregator(store)
    offset = 0
    for minutes in range(0, 4 * 60, 10):  # 11:00-15:00: contributions every 10 minutes
        offset += 1
        aggregator.take(r.settled("tcp-1", minutes), 0, offset)
        if minutes < 3 * 60:  # from 14:00 the bet sensor is stuck
            aggregator.take(encode_contribution(minutes), 1, offset)
    surveillance = Surveillance(band=BAND)
    assert surveillance.review(aggregator) == []  # partition 1 is behind (13:50): 14:00 open
    offset += 1
    aggregator.take(encode_contribution(5 * 60 + 10), 1, offset)  # both now past 15:05
    aggregator.take(r.settled("tcp-1", 5 * 60 + 10), 0, offset)
    (alert,) = surveillance.review(aggregator)
    assert (alert.alert_id, alert.reason) == (
        "tcp-1@2026-11-29T14:00:00Z",
        "no_contributions_while_playing",
    )
    assert surveillance.snapshot.alerting == {"tcp-1": "no_contributions_while_playing"}
    assert surveillance.review(aggregator) == []  # checked once per process


def test_a_process_that_does_not_own_every_partition_holds_its_alerts_until_it_does() -> None:
    aggregator = Aggregator({})
    offset = 0
    for minutes in range(0, 4 * 60, 10):  # the same stuck sensor from 14:00
        offset += 1
        aggregator.take(r.settled("tcp-1", minutes), 0, offset)
        if minutes < 3 * 60:
            aggregator.take(encode_contribution(minutes), 1, offset)
    offset += 1
    aggregator.take(encode_contribution(5 * 60 + 10), 1, offset)
    aggregator.take(r.settled("tcp-1", 5 * 60 + 10), 0, offset)
    surveillance = Surveillance(band=BAND)
    assert surveillance.review(aggregator, judge=False) == []  # part of the floor: no verdict
    assert surveillance.snapshot.alerting == {}
    assert surveillance.windows  # the page's board still gets the (exact) windows
    (alert,) = surveillance.review(aggregator)  # every partition again: the held hour judged
    assert alert.alert_id == "tcp-1@2026-11-29T14:00:00Z"


def encode_contribution(minutes: int) -> bytes:
    from streams.codec import encode  # noqa: PLC0415

    return encode(r.contribution("tcp-1", minutes, 100, 5_000, 500))


def test_a_review_is_due_each_time_the_floor_enters_another_hour() -> None:
    aggregator, surveillance = Aggregator({}), Surveillance(band=BAND)
    assert not surveillance.due(aggregator)  # nothing read: no event time
    aggregator.take(encode_contribution(10), 0, 1)  # 11:10, less the 5 min grace: 11:05
    assert surveillance.due(aggregator)
    aggregator.take(encode_contribution(64), 0, 2)  # 12:04 - grace: still the 11:00 hour
    assert not surveillance.due(aggregator)
    aggregator.take(encode_contribution(65), 0, 3)  # 12:05 - grace: 12:00, 11:00 has closed
    assert surveillance.due(aggregator)
    assert not surveillance.due(aggregator)
    aggregator.take(encode_contribution(3 * 60), 0, 4)  # hours later, in one step
    assert surveillance.due(aggregator)
