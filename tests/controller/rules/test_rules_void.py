"""Voided rounds: a void before settlement reverses exactly that round's contributions; a void
after settlement is refused (a settled round's money moves only by an authorised correction).

Amounts worked by hand from 649a.12(e)(3) (14% of $1) and (i)(4) (21% primary, 8% reserve).
"""

from __future__ import annotations

from controller.model.events import ContributionsReversed
from tests.controller.scenario import (
    Outcome,
    Scenario,
    at,
    conserved,
    correct,
    given,
    locked_round,
    meter_is,
    opened,
    pays_nothing,
    rejected,
    settled,
    sub,
    voided,
    wager,
)

BONUS = "five_card_hand_bonus"


def reversals(outcome: Outcome) -> list[ContributionsReversed]:
    """The reversal events ``when`` emitted."""
    return [e for e in outcome.emitted if isinstance(e, ContributionsReversed)]


def test_a_void_before_the_lock_touches_no_meter() -> None:
    outcome = given().events(opened("tcp-1", "r1"), wager(1, "progressive", "1.00")).when(voided())
    outcome.then(meter_is("tcp-progressive", "1000.00"), pays_nothing())
    assert reversals(outcome) == []


def test_a_void_after_the_lock_reverses_the_contributions_exactly() -> None:
    # 649a.12(e)(3): two wagers put $0.28 on the meter; the void takes exactly $0.28 back.
    wagers = (wager(seat, "progressive", "1.00") for seat in (1, 2))
    outcome = given().events(*locked_round("tcp-1", "r1", *wagers)).when(voided("misdeal"))
    outcome.then(meter_is("tcp-progressive", "1000.00"), conserved())
    (reversal,) = reversals(outcome)
    assert (reversal.primary_sub, reversal.reserve_sub) == (sub("0.28"), 0)
    assert (reversal.count, reversal.reason) == (2, "misdeal")


def test_a_void_reverses_the_reserve_too() -> None:
    # 649a.12(i)(4): $0.21 + $0.08 per wager, own and dealer: both come back off.
    wagers = (wager(2, BONUS, "1.00"), wager(2, BONUS, "1.00", on="dealer"))
    given().events(*locked_round("tcp-1", "r1", *wagers)).when(voided()).then(
        meter_is("tcp-five-card-bonus", "10000.00", reserve="0"), conserved()
    )


def test_a_void_reverses_only_its_own_round() -> None:
    # tcp-2's $0.14 stays on the shared meter when tcp-1's round is voided.
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(*locked_round("tcp-2", "r9", wager(3, "progressive", "1.00")))
    scenario.when(at(voided(), table="tcp-1", round_id="r1")).then(
        meter_is("tcp-progressive", "1000.14")
    )


def test_a_void_of_every_meter_the_round_fed() -> None:
    kinds = ("progressive", "five_card_progressive", BONUS, "five_of_six_progressive")
    wagers = (wager(4, kind, "1.00") for kind in kinds)
    outcome = given().events(*locked_round("tcp-1", "r1", *wagers)).when(voided())
    assert {r.meter_id for r in reversals(outcome)} == {
        "tcp-progressive",
        "tcp-five-card",
        "tcp-five-card-bonus",
        "tcp-five-of-six",
    }
    outcome.then(meter_is("tcp-five-of-six", "10000.00"), meter_is("tcp-five-card", "10000.00"))


def settled_round() -> Scenario:
    """tcp-1 round r1 settled with one progressive wager."""
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    return scenario.events(settled(dealer="2c 5d 8s", seats={1: "3h 4h 9c"}))


def test_a_void_after_settlement_is_refused() -> None:
    settled_round().when(voided()).then(rejected("void after settlement"))


def test_a_void_twice_is_refused() -> None:
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(voided())
    scenario.when(voided()).then(rejected("already voided"))


def test_a_voided_round_cannot_be_settled() -> None:
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(voided())
    scenario.when(settled(dealer="2c 5d 8s", seats={1: "3h 4h 9c"})).then(rejected("voided"))


def test_after_a_void_the_table_opens_a_new_round() -> None:
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(voided())
    scenario.when(*locked_round("tcp-1", "r2", wager(1, "progressive", "1.00"))).then(
        meter_is("tcp-progressive", "1000.14")
    )


def test_a_void_after_another_tables_royal_leaves_no_meter_negative() -> None:
    # 649a.12(i)(4), rules README 6 ("neither may lose a cent"): tcp-1 and tcp-2 each lock a $1
    # Five Card Hand Bonus (meter $10,000.42, reserve $0.16). tcp-2's royal takes $10,000.42; the
    # meter restarts at the $0.16 reserve. Voiding tcp-1 then takes back $0.21 and $0.08.
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, BONUS, "1.00")))
    scenario.events(*locked_round("tcp-2", "r1", wager(1, BONUS, "1.00")))
    scenario.events(settled(dealer="2c 5d 8s", community="Jh Th", seats={1: "Ah Kh Qh"}))
    scenario.when(at(voided(), table="tcp-1")).then(conserved())


def test_a_void_after_a_correction_leaves_no_meter_negative() -> None:
    # Rules README 6-7: a meter never goes below zero. The correction of -$1,000.14 is accepted
    # (it leaves exactly $0); the void then reverses the round's $0.14.
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(correct("tcp-progressive", -sub("1000.14")))
    scenario.when(voided()).then(conserved())
