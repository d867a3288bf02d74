"""The life of a percentage-of-meter hit: recognised -> validated -> paid, in that order only.

649a.11(c)(5)(iii)-(iv), (7)(iii)-(iv), (9)(iii)-(iv): a floorperson or above validates the payout,
and a 100% payout is not paid from the table inventory but after documentation. Rules README 7.
"""

from __future__ import annotations

import pytest

from controller.model.commands import PayHit, ValidateHit
from tests.controller.scenario import (
    Scenario,
    accepted,
    given,
    hit_status,
    locked_round,
    meter_is,
    pay,
    rejected,
    resolve_hit,
    settled,
    validate,
    wager,
)

HIT = "tcp-1/r1/progressive/seat1"


def recognised() -> Scenario:
    """Seat 1 at tcp-1 hits A-K-Q of spades (100% of $1,000.14): hit HIT is recognised."""
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    return scenario.events(settled(dealer="2c 5d 8s", seats={1: "As Ks Qs"}))


def test_a_hit_is_recognised_pending_validation_with_the_meter_already_reset() -> None:
    # 649a.12(e)(4): the amount is fixed at the player's turn; the meter reseeds at once.
    scenario = recognised()
    scenario.when().then(
        hit_status(HIT, "pending_validation"), meter_is("tcp-progressive", "1000.00")
    )
    assert scenario.state.hits[resolve_hit(scenario.state, HIT)].amount_cents == 1000_14


def test_validated_then_paid() -> None:
    scenario = recognised()
    scenario.when(validate(HIT, by="floor-7")).then(accepted(), hit_status(HIT, "validated"))
    scenario.when(pay(HIT)).then(accepted(), hit_status(HIT, "paid"))


def test_payment_before_validation_is_refused() -> None:
    # 649a.11(c)(5)(iii) before (iv).
    recognised().when(pay(HIT)).then(rejected("must be validated before it is paid"))


def test_a_second_validation_is_refused() -> None:
    scenario = recognised().events(validate(HIT))
    scenario.when(validate(HIT)).then(rejected("not pending validation"))


def test_a_second_payment_is_refused() -> None:
    scenario = recognised().events(validate(HIT), pay(HIT))
    scenario.when(pay(HIT)).then(rejected("is paid"))


def test_validating_a_paid_hit_is_refused() -> None:
    scenario = recognised().events(validate(HIT), pay(HIT))
    scenario.when(validate(HIT)).then(rejected("not pending validation"))


@pytest.mark.parametrize("command", [validate("no-such-hit"), pay("no-such-hit")])
def test_an_unknown_hit_is_refused(command: ValidateHit | PayHit) -> None:
    recognised().when(command).then(rejected("unknown hit 'no-such-hit'"))


def test_a_ten_percent_hit_also_waits_for_validation() -> None:
    # 649a.11(c)(7)(iii): the Five-Card straight flush (10% of the meter) is validated too.
    scenario = given().events(
        *locked_round("tcp-1", "r1", wager(2, "five_card_progressive", "1.00"))
    )
    scenario.when(settled(dealer="2c 5d 8s", community="9h 8h", seats={2: "7h 6h 5h"})).then(
        hit_status("tcp-1/r1/five_card_progressive/seat2", "pending_validation")
    )


def test_fixed_awards_have_no_hit_life() -> None:
    # Only percentage-of-meter payouts are hits; a 500-for-1 A-K-Q suited is a fixed award.
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(settled(dealer="2c 5d 8s", seats={1: "Ah Kh Qh"}))
    assert len(scenario.state.hits) == 0


def test_a_paid_hit_is_never_overwritten() -> None:
    # Rules README 7: a hit's life ends at paid. Round r1 (Five-Card SF, 10% of $10,000.21 =
    # $1,000.02) is validated and paid; r2 follows; then round id r1 again with another SF.
    scenario = given()
    first = ""
    for round_id in ("r1", "r2", "r1"):
        scenario.when(
            *locked_round("tcp-1", round_id, wager(1, "five_card_progressive", "1.00")),
            settled(dealer="2c 5d 8s", community="9h 8h", seats={1: "7h 6h 5h"}),
        )
        if len(scenario.state.hits) == 1:
            first = resolve_hit(scenario.state, "tcp-1/r1/five_card_progressive/seat1")
            scenario.events(validate(first), pay(first))
    paid = scenario.state.hits[first]
    assert (paid.status, paid.amount_cents) == ("paid", 1000_02)
    assert len(scenario.state.hits) == 3
