"""Ceilings with overflow, worked by hand from the rule texts.

* NY 9 NYCRR 5320.8 (and 5321.18 for table games), restating GLI-12: a progressive may have a
  ceiling; the meter never shows or pays more than it, and contributions above it are not lost;
* NJ N.J.A.C. 13:69E-1.39A: the same, with the excess carried ("overflow") or diverted to another
  progressive meter;
* Maryland COMAR 36.04.01.30: a ceiling may be raised at any time and lowered only when the
  meter is not above the new ceiling.

Amounts from 649a.12: (e) primary 14% on $1 = $0.14, seed/reseed $1,000; (h) primary 21% = $0.21,
seed/reseed $10,000; (i) primary 21% + reserve 8% = $0.08, reseed 0; (j) seed $10,000.
"""

from __future__ import annotations

from controller.model.events import ContributionsReversed, ProgressiveHit
from controller.model.table_events import TableEvent
from tests.controller.scenario import (
    PA,
    Outcome,
    activate,
    conserved,
    correct,
    envy,
    given,
    hit,
    locked_round,
    meter_is,
    pays,
    rejected,
    settled,
    sub,
    voided,
    wager,
)
from tests.controller.scenario_checks import Check

LOW_DEALER = "2c 4d 7h"
FILLERS = ("9d 5s 3h", "8d 6s 3c", "Jd 4s 3d", "Td 6h 2s", "Js 5h 2d")


def seats(first: str, count: int) -> dict[int, str]:
    """Seat 1 holds ``first``; seats 2..count hold hands that win nothing here."""
    return {1: first} | {seat: FILLERS[seat - 2] for seat in range(2, count + 1)}


def capped(meter: str, progressive: str, limits: str, text: str = PA) -> str:
    """``text`` with ``limits`` (ceiling, overflow) added to ``[meters.<meter>]``."""
    plain = f'[meters.{meter}]\nprogressive = "{progressive}"\n'
    assert plain in text
    return text.replace(plain, f"{plain}{limits}\n")


E_CARRY = capped("tcp-progressive", "pa-649a12e-A", 'ceiling = "1000.20"\noverflow = "carry"')
H_DIVERT = capped(
    "tcp-five-card", "pa-649a12h", 'ceiling = "10000.30"\noverflow = "divert:tcp-five-of-six"'
)
H_CARRY = capped("tcp-five-card", "pa-649a12h", 'ceiling = "10000.30"')
I_CARRY = capped("tcp-five-card-bonus", "pa-649a12i", 'ceiling = "10000.30"')


def overflow_is(meter_id: str, amount: str) -> Check:
    """The meter's overflow, to the sub-unit."""
    expected = 0 if amount == "0" else sub(amount)

    def check(outcome: Outcome) -> None:
        assert outcome.meter(meter_id).overflow_sub == expected, outcome.meter(meter_id)

    return check


def progressive_wagers(
    count: int, kind: str = "progressive", round_id: str = "r1"
) -> tuple[TableEvent, ...]:
    """A locked round at tcp-1 where seats 1..count each wager $1 on ``kind``."""
    return locked_round("tcp-1", round_id, *(wager(s, kind, "1.00") for s in range(1, count + 1)))


def test_a_contribution_stops_the_meter_at_its_ceiling_and_carries_the_rest() -> None:
    # NY 5320.8, NJ 13:69E-1.39A: $1,000 + $0.14 = $1,000.14; the second $0.14 would make
    # $1,000.28, so the meter stops at $1,000.20 and $0.08 goes to the overflow.
    given(E_CARRY).when(*progressive_wagers(2)).then(
        meter_is("tcp-progressive", "1000.20"), overflow_is("tcp-progressive", "0.08"), conserved()
    )


def test_the_next_reset_starts_at_reseed_plus_overflow_and_empties_it() -> None:
    # NJ 13:69E-1.39A: A-K-Q of spades pays the meter ($1,000.20, 649a.12(e)(1)), not the
    # overflow; the meter restarts at reseed $1,000 + overflow $0.08 = $1,000.08.
    given(E_CARRY).events(*progressive_wagers(2)).when(
        settled(dealer=LOW_DEALER, seats=seats("As Ks Qs", 2))
    ).then(
        pays(envy(2, "100.00", holder=1), hit(1, "1000.20", hand="ace_king_queen_of_spades")),
        meter_is("tcp-progressive", "1000.08"),
        overflow_is("tcp-progressive", "0"),
        conserved(),
    )


def test_a_restart_above_the_ceiling_keeps_the_excess_in_the_overflow() -> None:
    # NY 5320.8 (never shows more): five wagers -> meter $1,000.20, overflow $0.50; after the
    # hit, $1,000 + $0.50 = $1,000.50 would pass the ceiling, so $1,000.20 + $0.30 overflow.
    given(E_CARRY).events(*progressive_wagers(5)).when(
        settled(dealer=LOW_DEALER, seats=seats("As Ks Qs", 5))
    ).then(
        pays(*(envy(seat, "100.00", holder=1) for seat in range(5, 1, -1)), hit(1, "1000.20")),
        meter_is("tcp-progressive", "1000.20"),
        overflow_is("tcp-progressive", "0.30"),
        conserved(),
    )


def test_the_reserve_is_not_capped_and_funds_the_restart_with_the_overflow() -> None:
    # 649a.12(i)(4) reseed 0 + reserve; NJ 13:69E-1.39A: two wagers put $0.42 primary and $0.16
    # reserve; the meter stops at $10,000.30 with $0.12 overflow, the reserve keeps all $0.16.
    # The royal pays $10,000.30; the meter restarts at 0 + $0.16 + $0.12 = $0.28.
    start = given(I_CARRY).events(*progressive_wagers(2, "five_card_hand_bonus"))
    assert start.meter("tcp-five-card-bonus").reserve_sub == sub("0.16")
    assert start.meter("tcp-five-card-bonus").overflow_sub == sub("0.12")
    start.when(settled(dealer=LOW_DEALER, community="Jh Th", seats=seats("Ah Kh Qh", 2))).then(
        pays(hit(1, "10000.30", meter="tcp-five-card-bonus")),
        meter_is("tcp-five-card-bonus", "0.28", reserve="0"),
        overflow_is("tcp-five-card-bonus", "0"),
        conserved(),
    )


def test_a_percentage_award_is_priced_from_the_meter_never_the_overflow() -> None:
    # 649a.12(h)(1) straight flush 10% of meter: the meter is $10,000.30 with $0.12 overflow;
    # 10% of $10,000.30 is $1,000.03 (10% of $10,000.42 would have been $1,000.04).
    given(H_CARRY).events(*progressive_wagers(2, "five_card_progressive")).when(
        settled(dealer=LOW_DEALER, community="9c 8c", seats=seats("7c 6c 5c", 2))
    ).then(
        pays(envy(2, "300.00", holder=1), hit(1, "1000.03", hand="straight_flush")),
        meter_is("tcp-five-card", "9000.27"),
        overflow_is("tcp-five-card", "0.12"),
        conserved(),
    )


def test_divert_sends_the_excess_to_the_named_meter() -> None:
    # NJ 13:69E-1.39A: $10,000 + $0.21 + $0.21 would be $10,000.42; the meter stops at
    # $10,000.30 and $0.12 is contributed to tcp-five-of-six ($10,000 -> $10,000.12).
    outcome = given(H_DIVERT).when(*progressive_wagers(2, "five_card_progressive"))
    outcome.then(
        meter_is("tcp-five-card", "10000.30"),
        overflow_is("tcp-five-card", "0"),
        meter_is("tcp-five-of-six", "10000.12"),
        conserved(),
    )
    assert outcome.meter("tcp-five-card").transferred_sub == -sub("0.12")
    assert outcome.meter("tcp-five-of-six").transferred_sub == sub("0.12")


def test_a_void_takes_back_the_overflow_first() -> None:
    # Policy (README): the round's contributions above the ceiling came last, so a void takes
    # them back from the overflow first: $0.28 back = $0.08 overflow + $0.20 meter.
    given(E_CARRY).events(*progressive_wagers(2)).when(voided("shoe fault")).then(
        meter_is("tcp-progressive", "1000.00"), overflow_is("tcp-progressive", "0"), conserved()
    )


def test_a_void_leaves_a_diverted_part_where_it_went_and_says_so() -> None:
    # Policy (README): $0.12 went on to tcp-five-of-six; the void takes back the $0.30 still on
    # tcp-five-card and names the rest.
    outcome = (
        given(H_DIVERT)
        .events(*progressive_wagers(2, "five_card_progressive"))
        .when(voided("shoe fault"))
    )
    outcome.then(
        meter_is("tcp-five-card", "10000.00"), meter_is("tcp-five-of-six", "10000.12"), conserved()
    )
    (reversal,) = (e for e in outcome.emitted if isinstance(e, ContributionsReversed))
    assert reversal.primary_sub == sub("0.30")
    assert "diverted" in reversal.reason


def test_a_ceiling_may_be_raised_while_a_round_is_live() -> None:
    # Maryland COMAR 36.04.01.30: raising applies at once, no safe point waited for; the next
    # contribution fills the meter to the new ceiling ($1,000.20 + $0.14 = $1,000.34).
    raised = E_CARRY.replace('ceiling = "1000.20"', 'ceiling = "1000.50"')
    scenario = given(E_CARRY).events(*progressive_wagers(2), activate(raised))
    assert scenario.state.config is not None
    assert scenario.state.config.meters["tcp-progressive"].ceiling_cents == 100_050
    scenario.when(*locked_round("tcp-2", "r1", wager(1, "progressive", "1.00"))).then(
        meter_is("tcp-progressive", "1000.34"), overflow_is("tcp-progressive", "0.08")
    )


def test_a_ceiling_may_not_be_lowered_below_the_meter() -> None:
    # Maryland COMAR 36.04.01.30: the meter stands at $1,000.14; $1,000.10 is refused with the
    # reason, $1,000.14 is accepted.
    scenario = given(E_CARRY).events(*progressive_wagers(1))
    lower = E_CARRY.replace('ceiling = "1000.20"', 'ceiling = "1000.10"')
    scenario.when(activate(lower)).then(rejected("1000.14", "Maryland"))
    level = E_CARRY.replace('ceiling = "1000.20"', 'ceiling = "1000.14"')
    scenario.when(activate(level)).then(meter_is("tcp-progressive", "1000.14"))


def test_a_ceiling_added_below_the_meter_is_refused() -> None:
    # Maryland COMAR 36.04.01.30: adding a ceiling lowers it from none; below $1,000.14: refused.
    scenario = given().events(*progressive_wagers(1))
    scenario.when(activate(E_CARRY.replace("1000.20", "1000.13"))).then(rejected("Maryland"))


def test_a_correction_may_not_take_the_meter_above_its_ceiling() -> None:
    # NY 5320.8: the meter never shows more than its ceiling.
    given(E_CARRY).when(correct("tcp-progressive", sub("0.21"))).then(rejected("ceiling"))
    given(E_CARRY).when(correct("tcp-progressive", sub("0.20"))).then(
        meter_is("tcp-progressive", "1000.20")
    )


def test_a_hit_event_records_the_overflow_it_moved() -> None:
    # The hit's own fields explain the restart, so reconciliation can re-add it.
    outcome = (
        given(E_CARRY)
        .events(*progressive_wagers(2))
        .when(settled(dealer=LOW_DEALER, seats=seats("As Ks Qs", 2)))
    )
    (event,) = (e for e in outcome.emitted if isinstance(e, ProgressiveHit))
    assert (event.overflow_before_sub, event.overflow_after_sub) == (sub("0.08"), 0)
    assert event.meter_after_sub == sub("1000.08")


def test_two_tables_share_one_ceiling() -> None:
    # A linked meter has one ceiling: tcp-1 takes it to $1,000.14, tcp-2's $0.14 crosses it.
    given(E_CARRY).events(*progressive_wagers(1)).when(
        *locked_round("tcp-2", "r1", wager(4, "progressive", "1.00"))
    ).then(meter_is("tcp-progressive", "1000.20"), overflow_is("tcp-progressive", "0.08"))
