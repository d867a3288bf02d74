"""Meter corrections: a meter goes down only by a paid hit or a documented, authorised correction
(rules README, industry practice) that names who made it and why; no correction makes it negative.
"""

from __future__ import annotations

import pytest

from controller.model.events import MeterCorrected
from tests.controller.scenario import (
    accepted,
    conserved,
    correct,
    given,
    locked_round,
    meter_is,
    meter_sub_is,
    rejected,
    sub,
    wager,
)


def test_a_correction_raises_the_meter_and_is_explained() -> None:
    # $1,000.00 + $25.50 = $1,025.50; the conservation identity counts it as a correction.
    outcome = given().when(correct("tcp-progressive", sub("25.50")))
    outcome.then(accepted(), meter_is("tcp-progressive", "1025.50"), conserved())
    assert outcome.meter("tcp-progressive").corrected_sub == sub("25.50")


def test_a_correction_lowers_the_meter_to_the_sub_unit() -> None:
    # Sub-unit precision: $1,000.00 less 1 sub-unit.
    given().when(correct("tcp-progressive", -1)).then(
        meter_sub_is("tcp-progressive", sub("1000.00") - 1), conserved()
    )


def test_a_correction_to_exactly_zero_is_allowed() -> None:
    given().when(correct("tcp-progressive", -sub("1000.00"))).then(
        accepted(), meter_is("tcp-progressive", "0.00")
    )


def test_a_correction_below_zero_is_refused() -> None:
    given().when(correct("tcp-progressive", -sub("1000.00") - 1)).then(rejected("negative"))


def test_the_reserve_is_corrected_on_its_own() -> None:
    # 649a.12(i)(4): one wager puts $0.08 in the reserve; +$1.00 makes $1.08.
    scenario = given().events(
        *locked_round("tcp-1", "r1", wager(1, "five_card_hand_bonus", "1.00"))
    )
    scenario.when(correct("tcp-five-card-bonus", reserve_delta_sub=sub("1.00"))).then(
        meter_is("tcp-five-card-bonus", "10000.21", reserve="1.08"), conserved()
    )


def test_a_reserve_below_zero_is_refused() -> None:
    given().when(correct("tcp-five-card-bonus", reserve_delta_sub=-1)).then(rejected("reserve"))


@pytest.mark.parametrize(
    ("by", "reason"), [("", "audit"), ("mgr", ""), ("  ", "audit"), ("mgr", " ")]
)
def test_a_correction_names_who_and_why(by: str, reason: str) -> None:
    given().when(correct("tcp-progressive", sub("1.00"), by=by, reason=reason)).then(
        rejected("who made it (by) and why")
    )


def test_an_unknown_meter_is_refused() -> None:
    given().when(correct("no-such-meter", sub("1.00"))).then(rejected("unknown meter"))


def test_the_correction_event_records_who_why_and_the_meter_sequence() -> None:
    scenario = given()
    before = scenario.meter("tcp-progressive").seq
    outcome = scenario.when(correct("tcp-progressive", sub("2.00"), by="mgr-9", reason="sign fix"))
    (event,) = outcome.emitted
    assert isinstance(event, MeterCorrected)
    assert (event.by, event.reason, event.meter_seq) == ("mgr-9", "sign fix", before + 1)
