"""Reconciliation over hand-built event streams: the balance, the period cuts, and corruption.

The stream (one Five Card Hand Bonus meter, 649a.12(i): seed $10,000, reseed $0, 21% primary and
8% reserve of each $1 wager), worked by hand in sub-units (1 cent = 1,000,000):

    seed                                  1,000,000,000,000
    3 contributions of $1    +63,000,000 (meter)  +24,000,000 (reserve)
    void of one (tcp-2 r7)   -21,000,000          -8,000,000
    meter                     1,000,042,000,000    reserve 16,000,000
    10% hit: 100,004.2 cents -> paid 100,004 cents; meter 900,038,000,000
    100% dealer hit, 3 ways: 900,038 cents (300,013 + 300,013 + 300,012);
        meter 0 + reseed 0 + reserve 16,000,000 = 16,000,000; reserve 0
    correction +5,000,000 by "supervisor 17"
    closing                   21,000,000           reserve 0
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.events import (
    AwardShare,
    ContributionRecorded,
    ContributionsReversed,
    EnvyAwarded,
    Event,
    FixedAwarded,
    HitPaid,
    HitValidated,
    MeterCorrected,
    MeterEvent,
    MeterSeeded,
    ProgressiveHit,
)
from controller.reconciliation.period import MeterReport
from controller.reconciliation.report import (
    PositionWindow,
    Report,
    TimeWindow,
    Unreadable,
    gaming_day,
    reconcile,
)
from controller.reconciliation.view import csv_rows, report_document
from tests.controller.scenario import PA

M = "tcp-five-card-bonus"
P = "tcp-progressive"
SEED = 1_000_000_000_000
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
Item = Event | Unreadable


def at(minute: int) -> str:
    return (T0 + timedelta(minutes=minute)).isoformat().replace("+00:00", "Z")


def contribution(
    seq: int, table: str, round_id: str, seat: int, on: str = "own"
) -> ContributionRecorded:
    return ContributionRecorded(
        meter_id=M,
        table_id=table,
        round_id=round_id,
        seat=seat,
        wager="five_card_hand_bonus",
        on=on,
        wager_cents=100,
        primary_sub=21_000_000,
        reserve_sub=8_000_000,
        meter_seq=seq,
        occurred_at=at(seq),
    )


def ten_percent(seq: int) -> ProgressiveHit:
    return ProgressiveHit(
        hit_id="tcp-1/r1/five_card_hand_bonus/seat1",
        meter_id=M,
        table_id="tcp-1",
        round_id="r1",
        wager="five_card_hand_bonus",
        on="own",
        hand="straight_flush",
        cards=("9h", "8h", "7h", "6h", "5h"),
        share="10%",
        amount_cents=100_004,
        winners=(AwardShare(seat=1, amount_cents=100_004),),
        meter_before_sub=1_000_042_000_000,
        meter_after_sub=900_038_000_000,
        reserve_before_sub=16_000_000,
        reserve_after_sub=16_000_000,
        reseed_sub=0,
        meter_seq=seq,
        occurred_at=at(seq),
    )


def dealer_royal(seq: int) -> ProgressiveHit:
    winners = (
        AwardShare(seat=7, amount_cents=300_013),
        AwardShare(seat=4, amount_cents=300_013),
        AwardShare(seat=2, amount_cents=300_012),
    )
    return ProgressiveHit(
        hit_id="tcp-1/r2/five_card_hand_bonus/dealer",
        meter_id=M,
        table_id="tcp-1",
        round_id="r2",
        wager="five_card_hand_bonus",
        on="dealer",
        hand="royal_flush",
        cards=("Ah", "Kh", "Qh", "Jh", "Th"),
        share="100%",
        amount_cents=900_038,
        winners=winners,
        meter_before_sub=900_038_000_000,
        meter_after_sub=16_000_000,
        reserve_before_sub=16_000_000,
        reserve_after_sub=0,
        reseed_sub=0,
        meter_seq=seq,
        occurred_at=at(seq),
    )


def stream() -> list[Item]:
    """The worked stream of the module docstring, plus a second meter and table-paid awards."""
    return [
        MeterSeeded(meter_id=M, amount_sub=SEED, meter_seq=1, occurred_at=at(0)),
        MeterSeeded(meter_id=P, amount_sub=100_000_000_000, meter_seq=1, occurred_at=at(0)),
        contribution(2, "tcp-1", "r1", 1),
        contribution(3, "tcp-1", "r1", 2, on="dealer"),
        contribution(4, "tcp-2", "r7", 3),
        ContributionsReversed(
            meter_id=M,
            table_id="tcp-2",
            round_id="r7",
            primary_sub=21_000_000,
            reserve_sub=8_000_000,
            count=1,
            reason="misdeal",
            meter_seq=5,
            occurred_at=at(5),
            requested_primary_sub=21_000_000,
            requested_reserve_sub=8_000_000,
        ),
        ten_percent(6),
        FixedAwarded(
            meter_id=M,
            table_id="tcp-1",
            round_id="r1",
            seat=2,
            wager="five_card_hand_bonus",
            on="own",
            hand="flush",
            cards=("2h", "7h", "9h", "Jh", "Kh"),
            amount_cents=5_000,
            occurred_at=at(6),
        ),
        EnvyAwarded(
            meter_id=P,
            table_id="tcp-1",
            round_id="r1",
            seat=3,
            holder_seat=1,
            wager="progressive",
            hand="ace_king_queen_of_spades",
            cards=("As", "Ks", "Qs"),
            amount_cents=10_000,
            occurred_at=at(6),
        ),
        HitValidated(hit_id="tcp-1/r1/five_card_hand_bonus/seat1", by="floor 3", occurred_at=at(7)),
        HitPaid(hit_id="tcp-1/r1/five_card_hand_bonus/seat1", by="cage 1", occurred_at=at(8)),
        dealer_royal(7),
        MeterCorrected(
            meter_id=M,
            amount_delta_sub=5_000_000,
            reserve_delta_sub=0,
            by="supervisor 17",
            reason="sensor miscount on tcp-3",
            meter_seq=8,
            occurred_at=at(9),
        ),
    ]


def run(
    items: list[Item],
    period: PositionWindow | TimeWindow | None = None,
    config: FloorConfig | None = None,
) -> Report:
    positioned = list(enumerate(items, start=1))
    return reconcile(positioned, period or PositionWindow(), config)


def meter(report: Report, meter_id: str = M) -> MeterReport:
    return next(m for m in report.meters if m.meter_id == meter_id)


def test_the_worked_stream_balances_to_the_sub_unit() -> None:
    report = run(stream())
    m = meter(report)
    assert report.balanced
    assert report.findings == ()
    assert (m.opening.amount_sub, m.opening.reserve_sub) == (0, 0)
    assert (m.closing.amount_sub, m.closing.reserve_sub) == (21_000_000, 0)
    assert m.flows.seeded_sub == SEED
    assert (m.flows.contributed_count, m.flows.contributed_primary_sub) == (3, 63_000_000)
    assert m.flows.contributed_reserve_sub == 24_000_000
    assert (m.flows.reversed_count, m.flows.reversed_primary_sub) == (1, 21_000_000)
    assert m.flows.paid_sub == (100_004 + 900_038) * 1_000_000
    assert m.flows.released_sub == 16_000_000
    assert m.flows.corrected_amount_sub == 5_000_000
    assert m.expected == (21_000_000, 0, 0)
    assert m.difference == (0, 0, 0)


def test_contributions_are_counted_by_table_and_by_wager_type() -> None:
    m = meter(run(stream()))
    tables = {k: (t.count, t.primary_sub, t.reserve_sub) for k, t in m.by_table}
    assert tables == {"tcp-1": (2, 42_000_000, 16_000_000), "tcp-2": (1, 21_000_000, 8_000_000)}
    wagers = {k: t.count for k, t in m.by_wager}
    assert wagers == {"five_card_hand_bonus": 2, "five_card_hand_bonus on dealer": 1}


def test_awards_by_level_and_kind_splits_voids_corrections_and_hit_life() -> None:
    report = run(stream())
    m = meter(report)
    awards = {(a.kind, a.hand): (a.count, a.cents) for a in m.awards}
    assert awards == {
        ("progressive", "straight_flush"): (1, 100_004),
        ("progressive", "royal_flush"): (1, 900_038),
        ("fixed", "flush"): (1, 5_000),
    }
    assert {(a.kind, a.cents) for a in meter(report, P).awards} == {("envy", 10_000)}
    assert m.splits == 1
    assert [(r.table_id, r.round_id, r.reason) for r in m.reversals] == [("tcp-2", "r7", "misdeal")]
    assert [(c.by, c.reason, c.amount_delta_sub) for c in m.corrections] == [
        ("supervisor 17", "sensor miscount on tcp-3", 5_000_000)
    ]
    assert (m.hits_validated, m.hits_paid) == (1, 1)
    assert m.outstanding_hits == ("tcp-1/r2/five_card_hand_bonus/dealer",)
    assert [h.hand for h in m.last_hits] == ["royal_flush", "straight_flush"]  # newest first


def test_a_position_cut_opens_at_the_state_before_it_and_adjacent_periods_add_up() -> None:
    items = stream()
    cut = 7  # after the 10% hit
    first, second = run(items, PositionWindow(to=cut)), run(items, PositionWindow(after=cut))
    a, b, whole = meter(first), meter(second), meter(run(items))
    assert (second.opening_position, first.closing_position) == (cut, cut)
    assert a.closing == b.opening
    assert (b.opening.amount_sub, b.opening.reserve_sub) == (900_038_000_000, 16_000_000)
    assert first.balanced
    assert second.balanced
    assert a.flows.paid_sub + b.flows.paid_sub == whole.flows.paid_sub
    assert [(x.kind, x.hand) for x in b.awards] == [
        ("fixed", "flush"),
        ("progressive", "royal_flush"),
    ]
    assert len(b.last_hits) == 2  # the regulator's last hits reach back before the period


def test_gaming_day_is_24_hours_from_the_local_start() -> None:
    day = gaming_day(date(2026, 11, 29), time(6, 0), timedelta(hours=-5))
    assert day.start == datetime(2026, 11, 29, 11, 0, tzinfo=UTC)
    assert day.end == datetime(2026, 11, 30, 11, 0, tzinfo=UTC)


def test_a_time_window_cuts_at_log_positions_and_notes_stragglers() -> None:
    items = stream()
    items.insert(8, replace(contribution(5, "tcp-3", "r9", 1), occurred_at=at(-30)))
    items = [_renumber(items, i) for i in range(len(items))]
    window = TimeWindow(start=T0 + timedelta(minutes=2), end=T0 + timedelta(minutes=7))
    report = run(items, window)
    assert (report.opening_position, report.closing_position) == (2, 10)
    assert report.balanced
    assert report.notes == (
        "1 records logged in the period but stamped before its start (left where the log put them)",
    )
    assert meter(report).flows.contributed_count == 4


def _renumber(items: list[Item], index: int) -> Item:
    """Give M's events consecutive meter_seq after an insertion."""
    item = items[index]
    if not isinstance(item, MeterEvent) or item.meter_id != M:
        return item
    seq = 1 + sum(isinstance(x, MeterEvent) and x.meter_id == M for x in items[:index])
    return replace(item, meter_seq=seq)


def test_a_period_with_no_records_opens_and_closes_at_the_same_state() -> None:
    report = run(stream(), PositionWindow(after=100))
    m = meter(report)
    assert report.records == 0
    assert m.opening == m.closing
    assert report.balanced


def findings(report: Report) -> set[tuple[str, tuple[int, ...]]]:
    return {(f.kind, f.positions) for f in report.findings}


def test_a_hit_priced_from_a_wrong_meter_is_flagged_at_its_position() -> None:
    items = stream()
    items[6] = replace(ten_percent(6), meter_before_sub=1_000_043_000_000)
    report = run(items)
    assert not report.balanced
    assert ("hit", (7,)) in findings(report)
    assert any("priced from a meter of 10000.43" in f.message for f in report.findings)


def test_a_hit_whose_meter_after_was_altered_breaks_the_balance_with_the_event_behind_it() -> None:
    items = stream()
    items[11] = replace(dealer_royal(7), meter_after_sub=17_000_000)
    report = run(items)
    m = meter(report)
    assert m.difference == (1_000_000, 0, 0)
    assert not m.balanced
    assert {("hit", (12,)), ("balance", (12,))} <= findings(report)


def test_an_altered_hit_before_a_reset_is_caught_at_the_hit_that_follows() -> None:
    """A 100% hit resets the meter from its own record, hiding an earlier error in the closing;
    the checks of each hit still flag both the altered hit and the one priced after it."""
    items = stream()
    items[6] = replace(ten_percent(6), meter_after_sub=900_039_000_000)
    report = run(items)
    assert meter(report).balanced
    assert {("hit", (7,)), ("hit", (12,))} <= findings(report)
    assert not report.balanced


def test_a_lost_and_a_replayed_meter_event_break_the_sequence() -> None:
    items = stream()
    lost = [*items[:3], *items[4:]]
    assert ("sequence", (4,)) in findings(run(lost))
    replayed = [*items[:3], items[2], *items[3:]]
    assert ("sequence", (4,)) in findings(run(replayed))


def test_contributions_are_checked_against_the_configured_rates() -> None:
    config = load_floor_config(PA, "pa")
    items = stream()
    assert run(items, config=config).balanced
    items[3] = replace(contribution(3, "tcp-1", "r1", 2, on="dealer"), primary_sub=20_000_000)
    report = run(items, config=config)
    assert ("contribution", (4,)) in findings(report)


def test_a_void_that_takes_back_more_than_its_round_gave_is_flagged() -> None:
    items = stream()
    reversal = items[5]
    assert isinstance(reversal, ContributionsReversed)
    items[5] = replace(reversal, count=2, primary_sub=42_000_000)
    assert ("reversal", (6,)) in findings(run(items))


def test_split_parts_that_do_not_add_up_and_unreadable_records_are_flagged() -> None:
    items: list[Item] = stream()
    parts = (AwardShare(seat=7, amount_cents=300_013), AwardShare(seat=4, amount_cents=300_013))
    items[11] = replace(dealer_royal(7), winners=parts)
    items.append(Unreadable("record does not decode: unknown event type 'x'"))
    items.append(HitPaid(hit_id="no-such-hit", by="cage 1", occurred_at=at(20)))
    got = findings(run(items))
    assert {("hit", (12,)), ("unreadable", (14,)), ("hit_life", (15,))} <= got


def test_a_correction_that_takes_the_meter_below_zero_is_flagged() -> None:
    items = stream()
    items.append(
        MeterCorrected(
            meter_id=M,
            amount_delta_sub=-22_000_000,
            reserve_delta_sub=0,
            by="x",
            reason="typo",
            meter_seq=9,
            occurred_at=at(10),
        )
    )
    assert ("negative", (14,)) in findings(run(items))


def _ceiling_config() -> FloorConfig:
    text = PA.replace(
        '[meters.tcp-five-card-bonus]\nprogressive = "pa-649a12i"',
        '[meters.tcp-five-card-bonus]\nprogressive = "pa-649a12i"\nceiling = "10000.30"',
    )
    return load_floor_config(text, "ceiling")


def test_overflow_above_a_ceiling() -> None:
    # NJ 13:69E-1.39A, worked by hand: ceiling $10,000.30 = 1,000,030,000,000; the 1st $0.21
    # fits, the 2nd keeps 9,000,000 and carries 12,000,000, the 3rd carries all 21,000,000.
    items = stream()[:5]
    items[3] = replace(contribution(3, "tcp-1", "r1", 2, on="dealer"), overflow_sub=12_000_000)
    items[4] = replace(contribution(4, "tcp-2", "r7", 3), overflow_sub=21_000_000)
    report = run(items, config=_ceiling_config())
    m = meter(report)
    assert report.balanced, report.findings
    assert m.ceiling_cents == 1_000_030
    assert m.closing.amount_sub == 1_000_030_000_000
    assert m.above_ceiling_sub == 33_000_000
    assert m.overflow_sub == 33_000_000
    assert m.expected == (1_000_030_000_000, 24_000_000, 33_000_000)
    rows = [r for r in csv_rows(report) if r[0] == "balance" and r[1] == M]
    flows = rows[: [r[2] for r in rows].index("expected")]
    assert sum(int(r[6].replace(".", "")) for r in flows) == 33_000_000  # the overflow column


def test_a_contribution_that_ignores_the_ceiling_is_flagged() -> None:
    # The same stream recorded without the split: the meter passes its ceiling at positions 4, 5.
    report = run(stream()[:5], config=_ceiling_config())
    assert {("ceiling", (4,)), ("ceiling", (5,))} <= findings(report)
    assert not report.balanced


def test_a_reversal_from_the_overflow_and_a_reset_releasing_it_balance() -> None:
    # Policy (README): the void takes back the 3rd contribution from the overflow; the dealer
    # royal pays 1,000,030,000,000 and restarts at 0 + reserve 16,000,000 + overflow 12,000,000.
    items = stream()[:5]
    items[3] = replace(contribution(3, "tcp-1", "r1", 2, on="dealer"), overflow_sub=12_000_000)
    items[4] = replace(contribution(4, "tcp-2", "r7", 3), overflow_sub=21_000_000)
    reversal = stream()[5]
    assert isinstance(reversal, ContributionsReversed)
    items.append(replace(reversal, overflow_sub=21_000_000))
    royal = replace(
        dealer_royal(6),
        amount_cents=1_000_030,
        winners=(AwardShare(seat=7, amount_cents=1_000_030),),
        meter_before_sub=1_000_030_000_000,
        meter_after_sub=28_000_000,
        overflow_before_sub=12_000_000,
        overflow_after_sub=0,
    )
    items.append(royal)
    report = run(items, config=_ceiling_config())
    m = meter(report)
    assert report.balanced, report.findings
    assert (m.closing.amount_sub, m.closing.reserve_sub, m.overflow_sub) == (28_000_000, 0, 0)
    assert m.flows.reversed_overflow_sub == 21_000_000
    assert m.flows.overflow_released_sub == 12_000_000


def test_the_last_25_hits_newest_first() -> None:
    items: list[Item] = [MeterSeeded(meter_id=M, amount_sub=SEED, meter_seq=1, occurred_at=at(0))]
    amount = SEED
    for n in range(30):
        paid = amount // 10 // 1_000_000
        hit = replace(
            ten_percent(n + 2),
            round_id=f"r{n}",
            amount_cents=paid,
            winners=(AwardShare(seat=1, amount_cents=paid),),
            meter_before_sub=amount,
            meter_after_sub=amount - paid * 1_000_000,
            reserve_before_sub=0,
            reserve_after_sub=0,
        )
        items.append(hit)
        amount -= paid * 1_000_000
    report = run(items)
    assert report.balanced
    rows = meter(report).last_hits
    assert len(rows) == 25
    assert (rows[0].round_id, rows[-1].round_id) == ("r29", "r5")


def test_the_csv_balance_rows_sum_to_expected() -> None:
    report = run(stream())
    rows = [r for r in csv_rows(report) if r[0] == "balance" and r[1] == M]
    flows = rows[: [r[2] for r in rows].index("expected")]
    total = sum(int(r[4].replace(".", "")) for r in flows)
    expected = next(r for r in rows if r[2] == "expected")
    assert total == int(expected[4].replace(".", ""))
    assert report_document(report)["balanced"] is True
