"""The read side's aggregates: at-least-once delivery never counts a record twice, and the sums
are the integers the events carry.

A Kafka consumer that crashes redelivers, for each partition, the records after its last
committed offset: in order, interleaved with other partitions as it likes. The properties drive
`Aggregator` (the step the faust agent runs) with such schedules, rewinds at any moment, and then
with any subset of the records in any order, against an independent sum of the inputs.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, time, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.model.events import Event
from streams.codec import encode
from streams.scaleout.readside.aggregate import (
    DaySpec,
    Retention,
    Tally,
    WindowKey,
    apply,
    fact_of,
    merge,
    parse_at,
    totals,
)
from streams.scaleout.readside.fold import Aggregator
from tests.streams.scaleout.readside import records as r

TABLES = ("tcp-1", "tcp-2", "bj-1")
#: (partition, offset, value): the committed records of an events topic.
Record = tuple[int, int, bytes]


@st.composite
def events(draw: st.DrawFn) -> tuple[bytes, Counter[str], str]:
    """One record, what it adds (independently of the code under test) and its table."""
    table = draw(st.sampled_from(TABLES))
    minutes = draw(st.integers(0, 60 * 50))  # a little over two gaming days
    money = draw(st.integers(0, 10**12))
    kind = draw(st.sampled_from(["contribution", "reversal", "hit", "fixed", "envy", "settled"]))
    other = draw(st.integers(0, 10**9))
    add: Counter[str] = Counter()
    event: Event | None = None
    if kind == "contribution":
        event = r.contribution(table, minutes, other, money, other)
        add.update(contributions=1, wager_cents=other, contributed_sub=money + other)
    elif kind == "reversal":
        event = r.reversal(table, minutes, money, other)
        add.update(reversals=1, reversed_sub=money + other)
    elif kind == "hit":
        event = r.hit(table, minutes, money)
        add.update(hits=1, hit_cents=money)
    elif kind in {"fixed", "envy"}:
        event = (r.fixed if kind == "fixed" else r.envy)(table, minutes, money)
        add.update(awards=1, award_cents=money)
    value = r.settled(table, minutes) if event is None else encode(event)
    if kind == "settled":
        add.update(rounds=1)
    return value, add, table


@st.composite
def logs(draw: st.DrawFn) -> tuple[list[Record], dict[str, Counter[str]]]:
    """Committed records on up to 3 partitions (offsets increasing, with gaps where transaction
    markers and uncounted records sit), and each table's expected sums."""
    count = draw(st.integers(1, 3))
    log: list[Record] = []
    expected: dict[str, Counter[str]] = {t: Counter() for t in TABLES}
    for partition in range(count):
        offset = 0
        for value, add, table in draw(st.lists(events(), max_size=25)):
            offset += draw(st.integers(1, 3))
            log.append((partition, offset, value))
            expected[table].update(add)
        if draw(st.booleans()):  # a record the aggregates ignore
            log.append((partition, offset + 1, encode(r.seeded(0))))
    return log, expected


@st.composite
def redeliveries(draw: st.DrawFn, log: list[Record]) -> list[Record]:
    """An at-least-once delivery of ``log``: each partition in order, interleaved, rewound to an
    earlier point (a committed offset) at any moment, and always delivered to its end."""
    by_partition: dict[int, list[Record]] = {}
    for record in log:
        by_partition.setdefault(record[0], []).append(record)
    position = dict.fromkeys(by_partition, 0)
    delivered: list[Record] = []
    if not by_partition:
        return delivered
    for _step in range(draw(st.integers(0, 3 * len(log) + 3))):
        partition = draw(st.sampled_from(sorted(by_partition)))
        if draw(st.integers(0, 5)) == 0:  # a crash: back to some committed offset
            position[partition] = draw(st.integers(0, position[partition]))
        elif position[partition] < len(by_partition[partition]):
            delivered.append(by_partition[partition][position[partition]])
            position[partition] += 1
    for partition, records in by_partition.items():
        delivered.extend(records[position[partition] :])
    return delivered


def run(delivery: list[Record]) -> dict[str, dict[str, int]]:
    store: dict[str, dict[str, int]] = {}
    aggregator = Aggregator(store, DaySpec(time(6, 0), timedelta(hours=-5)))
    for partition, offset, value in delivery:
        aggregator.take(value, partition, offset)
    return store


def day_sums(store: dict[str, dict[str, int]], kind: str = "d") -> dict[str, Counter[str]]:
    stored = [(WindowKey.parse(k), Tally.from_json(v)) for k, v in store.items()]
    sums: dict[str, Counter[str]] = {t: Counter() for t in TABLES}
    for (table, window_kind, _start), tally in totals(stored).items():
        if window_kind == kind:
            values = tally.to_json()
            values.pop("mark")
            sums[table].update({k: v for k, v in values.items() if v})
    return sums


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_redelivery_schedule_gives_the_aggregates_of_one_delivery_in_order(
    data: st.DataObject,
) -> None:
    log, _expected = data.draw(logs())
    once = run(log)
    assert run(data.draw(redeliveries(log))) == once


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_sums_are_the_integers_of_the_inputs_per_day_and_per_hour(data: st.DataObject) -> None:
    log, expected = data.draw(logs())
    store = run(data.draw(redeliveries(log)))
    assert day_sums(store, "d") == expected
    assert day_sums(store, "h") == expected  # a gaming day is exactly 24 of its hours
    assert all(type(v) is int for stored in store.values() for v in stored.values())


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_redelivering_any_subset_in_any_order_after_the_fact_changes_nothing(
    data: st.DataObject,
) -> None:
    log, _expected = data.draw(logs())
    store: dict[str, dict[str, int]] = {}
    aggregator = Aggregator(store, DaySpec())
    for partition, offset, value in log:
        aggregator.take(value, partition, offset)
    before = {k: dict(v) for k, v in store.items()}
    again = data.draw(st.lists(st.sampled_from(log))) if log else []
    outcomes = {aggregator.take(value, partition, offset) for partition, offset, value in again}
    assert store == before
    assert outcomes <= {"redelivered", "ignored"}


def test_a_record_applied_once_is_redelivered_not_applied() -> None:
    store: dict[str, dict[str, int]] = {}
    aggregator = Aggregator(store)
    value = encode(r.contribution("tcp-1", 5, 500, 1_000, 200))
    assert aggregator.take(value, 0, 7) == "applied"
    assert aggregator.take(value, 0, 7) == "redelivered"
    assert aggregator.take(value, 0, 3) == "redelivered"  # before the mark: applied already
    (hour,) = [Tally.from_json(v) for k, v in store.items() if "|h|" in k]
    assert (hour.contributions, hour.contributed_sub, hour.wager_cents, hour.mark) == (
        1,
        1_200,
        500,
        7,
    )


def test_uncounted_and_unreadable_records_change_nothing() -> None:
    store: dict[str, dict[str, int]] = {}
    aggregator = Aggregator(store)
    assert aggregator.take(encode(r.seeded(1)), 0, 1) == "ignored"
    assert aggregator.take(None, 0, 2) == "ignored"
    assert aggregator.take(b'{"type":"contribution_recorded","x":1}', 0, 3) == "unreadable"
    assert aggregator.take(b"\xff contribution_recorded", 0, 4) == "ignored"
    at_the_end = encode(r.contribution("tcp-1", 0, 1, 1, 1)).replace(
        b"2026-11-29T11:00:00Z", b"9999-12-31T23:00:00Z"
    )  # its gaming day would end after the calendar's last date: refused, no crash
    assert aggregator.take(at_the_end, 0, 5) == "unreadable"
    no_offset = encode(r.contribution("tcp-1", 0, 1, 1, 1)).replace(
        b"2026-11-29T11:00:00Z", b"2026-11-29T11:00:00"
    )  # a wall time names no instant: not guessed as this machine's local time
    assert aggregator.take(no_offset, 0, 6) == "unreadable"
    assert store == {}


# The gaming day as `controller.reconciliation.period.gaming_day` defines it: the 24 hours from
# the day's start, local time being UTC + offset.
@pytest.mark.parametrize(
    ("moment", "starts", "offset", "day", "hour"),
    [
        ("2026-11-29T10:59:59Z", time(6), timedelta(hours=-5), date(2026, 11, 28), "10:00"),
        ("2026-11-29T11:00:00Z", time(6), timedelta(hours=-5), date(2026, 11, 29), "11:00"),
        ("2026-11-30T10:59:00Z", time(6), timedelta(hours=-5), date(2026, 11, 29), "10:00"),
        (
            "2026-11-29T12:10:00Z",
            time(6),
            timedelta(hours=-5, minutes=-30),
            date(2026, 11, 29),
            "11:30",
        ),
        ("2026-11-29T05:59:00Z", time(6), timedelta(0), date(2026, 11, 28), "05:00"),
        ("2026-11-29T00:30:00Z", time(0), timedelta(hours=1), date(2026, 11, 29), "00:00"),
    ],
)
def test_gaming_day_and_its_hours(
    moment: str, starts: time, offset: timedelta, day: date, hour: str
) -> None:
    spec = DaySpec(starts, offset)
    at = parse_at(moment)
    assert spec.day_of(at) == day
    assert spec.hour_of(at).strftime("%H:%M") == hour
    assert spec.hour_of(at) <= at < spec.hour_of(at) + timedelta(hours=1)


def test_tallies_merge_by_integer_sums_and_a_stored_tally_round_trips() -> None:
    fact = fact_of(r.hit("tcp-1", 0, 123_456))
    assert fact is not None
    one = apply(Tally(), fact, 4)
    two = apply(Tally(), fact, 9)
    assert merge([one, two]).hit_cents == 246_912
    assert merge([one, two]).hits == 2
    assert Tally.from_json(one.to_json()) == one
    assert Tally.from_json(None) == Tally()
    assert fact.at == datetime(2026, 11, 29, 11, 0, tzinfo=UTC)


def test_recent_windows_are_read_from_the_index_also_after_a_restore() -> None:
    first: dict[str, dict[str, int]] = {}
    aggregator = Aggregator(first)
    for minutes in (0, 60 * 5, 60 * 30):  # 11:00, 16:00 and the next day's 17:00
        aggregator.take(encode(r.contribution("tcp-1", minutes, 100, 10, 1)), 0, minutes + 1)
    restored = Aggregator(dict(first))  # a new process: the store restored, nothing taken yet
    for store in (aggregator, restored):
        since = datetime(2026, 11, 29, 16, tzinfo=UTC)
        got = sorted((k.kind, k.start) for k, _t in store.stored(since))
        assert got == [
            ("d", "2026-11-29"),  # the day before since's is kept (a day spans two dates)
            ("d", "2026-11-30"),
            ("h", "2026-11-29T16:00:00Z"),
            ("h", "2026-11-30T17:00:00Z"),
        ]
        assert len(store.stored()) == 5
    assert restored.newest_hour() == datetime(2026, 11, 30, 17, tzinfo=UTC)
    restored.take(encode(r.contribution("tcp-2", 60 * 31, 100, 10, 1)), 1, 1)
    assert ("h", "2026-11-30T18:00:00Z") in {(k.kind, k.start) for k, _t in restored.stored()}


# Retention: windows older than the partition's newest event time less the retention go.
KEEP = Retention(hours=5, days=1)
FOUR_DAYS = 60 * 24 * 4
Contribution = tuple[int, str, int, int]  # (partition, table, minutes after BASE, sub-units)


@st.composite
def long_logs(draw: st.DrawFn) -> tuple[list[Record], list[Contribution]]:
    """Contributions on up to 3 partitions over about four days, in any time order."""
    log: list[Record] = []
    made: list[Contribution] = []
    for partition in range(draw(st.integers(1, 3))):
        for offset, (table, minutes, sub) in enumerate(
            draw(
                st.lists(
                    st.tuples(
                        st.sampled_from(TABLES), st.integers(0, FOUR_DAYS), st.integers(0, 10**6)
                    ),
                    max_size=30,
                )
            )
        ):
            log.append((partition, offset, encode(r.contribution(table, minutes, 1, sub, 0))))
            made.append((partition, table, minutes, sub))
    return log, made


def kept_windows(made: list[Contribution]) -> dict[str, int]:
    """Each window key the store should hold at the end and its contributed sub-units, worked
    out here for a gaming day starting 06:00 UTC: an hour is kept when it starts no more than
    ``KEEP.hours`` hours before the hour of its partition's newest record, a gaming day when it
    is no more than ``KEEP.days`` days before that record's."""
    newest = {p: max(m for q, _t, m, _s in made if q == p) for p, _t, _m, _s in made}
    kept: dict[str, int] = {}
    for partition, table, minutes, sub in made:
        at = r.BASE + timedelta(minutes=minutes)
        last = r.BASE + timedelta(minutes=newest[partition])
        hour, last_hour = (x.replace(minute=0, second=0, microsecond=0) for x in (at, last))
        day, last_day = ((x - timedelta(hours=6)).date() for x in (at, last))
        if hour >= last_hour - timedelta(hours=KEEP.hours):
            key = f"{table}|h|{hour.strftime('%Y-%m-%dT%H:%M:%SZ')}|{partition}"
            kept[key] = kept.get(key, 0) + sub
        if day >= last_day - timedelta(days=KEEP.days):
            key = f"{table}|d|{day.isoformat()}|{partition}"
            kept[key] = kept.get(key, 0) + sub
    return kept


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_windows_past_the_retention_are_deleted_and_the_rest_hold_every_record_once(
    data: st.DataObject,
) -> None:
    log, made = data.draw(long_logs())
    store: dict[str, dict[str, int]] = {}
    aggregator = Aggregator(store, DaySpec(), retention=KEEP)
    for partition, offset, value in data.draw(redeliveries(log)):
        aggregator.take(value, partition, offset)
    assert {key: tally["contributed_sub"] for key, tally in store.items()} == kept_windows(made)
    assert len(aggregator.stored()) == len(store)  # the index lost no key and kept none deleted


def test_a_restored_store_is_swept_per_partition_at_its_first_record() -> None:
    old = encode(r.contribution("tcp-1", 0, 1, 7, 0))
    store: dict[str, dict[str, int]] = {}
    first = Aggregator(store, DaySpec(), retention=KEEP)
    first.take(old, 0, 1)
    first.take(old, 1, 1)
    assert len(store) == 4  # an hour and a gaming day on each of two partitions
    restored = Aggregator(store, DaySpec(), retention=KEEP)  # a restart, the store restored
    three_days_on = encode(r.contribution("tcp-2", 60 * 72, 1, 5, 0))
    assert restored.take(three_days_on, 0, 2) == "applied"
    assert sorted(store) == [
        "tcp-1|d|2026-11-29|1",  # partition 1 read nothing newer: nothing of it is judged old
        "tcp-1|h|2026-11-29T11:00:00Z|1",
        "tcp-2|d|2026-12-02|0",
        "tcp-2|h|2026-12-02T11:00:00Z|0",
    ]
    assert restored.take(old, 0, 1) == "ignored"  # redelivered after its window went: not revived
    assert "tcp-1|h|2026-11-29T11:00:00Z|0" not in store
