"""Must-hit-by ("mystery") levels, worked by hand from the rule texts.

GLI-12 (Progressive Gaming Devices in Casinos) on mystery progressives, as restated by N.J.A.C.
13:69E-1.39B: the amount at which a mystery jackpot hits is selected at random when the jackpot
resets, lies between the reset and the must-hit-by amount, and is not knowable to anyone before
it hits; it must hit before the meter passes the must-hit-by amount.

The floor: the $5 tables tcp-7 and tcp-8 fund a mystery level from $100.00 to $110.00 at 50% of
each $5 wager ($2.50 a wager, no reserve), instead of the $5 Three Card progressive.
"""

from __future__ import annotations

import dataclasses

import pytest

from controller.codec import event_to_dict
from controller.config.floor import load_floor_config
from controller.model.commands import ArmMystery, TransferMeter
from controller.model.errors import ConfigError, RuleViolation
from controller.model.events import (
    EventRejected,
    MysteryArmed,
    MysteryRevealed,
    ProgressiveHit,
)
from controller.mystery import audit, commitment_of, unarmed, with_trigger
from tests.controller.scenario import (
    BLANK,
    PA,
    Command,
    Scenario,
    accepted,
    conserved,
    correct,
    given,
    hit_status,
    locked,
    locked_round,
    meter_is,
    pay,
    rejected,
    settled,
    sub,
    validate,
    wager,
)

MYSTERY_PROGRESSIVE = """
[progressives.mystery-5]
kind = "mystery"
rule = "GLI-12 mystery progressive; N.J.A.C. 13:69E-1.39B"
reset = "100.00"
must_hit_by = "110.00"
primary_rate = "0.50"
"""
LINK_5 = 'meters = { progressive = "tcp-progressive-5" }\n'
METER_5 = '[meters.tcp-progressive-5]\nprogressive = "pa-649a12e-A"\n'
MYSTERY = (
    PA.replace(LINK_5, 'meters = { progressive = "tcp-mystery" }\n')
    .replace(METER_5, METER_5 + 'wager_unit = "5.00"\n')
    .replace(
        "[meters.tcp-progressive]\n",
        '[meters.tcp-mystery]\nprogressive = "mystery-5"\n\n[meters.tcp-progressive]\n',
    )
    + MYSTERY_PROGRESSIVE
)
SALT = "00112233445566778899aabbccddeeff"


def arm(meter_id: str, trigger_cents: int, salt: str = SALT) -> ArmMystery:
    return ArmMystery(
        command_id=BLANK,
        meter_id=meter_id,
        trigger_cents=trigger_cents,
        salt=salt,
        sealed="sealed-by-the-edge",
        occurred_at=BLANK,
    )


def armed_floor(trigger_cents: int) -> Scenario:
    """The mystery floor, armed at ``trigger_cents``, as the edge leaves it (trigger unsealed)."""
    scenario = given(MYSTERY).events(arm("tcp-mystery", trigger_cents))
    scenario.state = with_trigger(scenario.state, "tcp-mystery", trigger_cents, SALT)
    return scenario


def one_wager(round_id: str, seat: int = 1) -> tuple[Command, ...]:
    """A round with one $5 wager, locked and settled without a paying hand."""
    return (
        *locked_round("tcp-7", round_id, wager(seat, "progressive", "5.00")),
        settled(dealer="2c 4d 7h", seats={seat: "9d 5s 3h"}),
    )


def test_a_mystery_level_starts_at_reset_and_waits_for_its_draw() -> None:
    scenario = given(MYSTERY)
    meter_is("tcp-mystery", "100.00")(scenario.when())
    assert unarmed(scenario.state) == ("tcp-mystery",)


def test_the_arming_logs_the_commitment_and_never_the_trigger() -> None:
    # 13:69E-1.39B: the hit amount is not knowable before the hit; GLI-12: fixed at the reset.
    outcome = given(MYSTERY).when(arm("tcp-mystery", 10_337))
    accepted()(outcome)
    (armed,) = outcome.emitted
    assert isinstance(armed, MysteryArmed)
    assert armed.commitment == commitment_of(10_337, SALT)
    logged = str(event_to_dict(armed))
    assert "10337" not in logged
    assert SALT not in logged
    assert unarmed(outcome.state) == ()


@pytest.mark.parametrize("trigger", [9_999, 11_000, 20_000])
def test_a_trigger_outside_reset_to_must_hit_by_is_refused_without_naming_it(trigger: int) -> None:
    outcome = given(MYSTERY).when(arm("tcp-mystery", trigger))
    rejected("outside [reset, must_hit_by)")(outcome)
    assert str(trigger) not in outcome.emitted[0].reason  # type: ignore[union-attr]


def test_the_wager_that_reaches_the_trigger_wins_exactly_the_trigger() -> None:
    # $100.00 + $2.50 = $102.50 < $103.37; + $2.50 = $105.00 >= $103.37: the second wager wins.
    scenario = armed_floor(10_337)
    scenario.events(*one_wager("r1"))
    outcome = scenario.when(*one_wager("r2", seat=3))
    hits = [e for e in outcome.emitted if isinstance(e, ProgressiveHit)]
    reveals = [e for e in outcome.emitted if isinstance(e, MysteryRevealed)]
    assert len(hits) == 1
    assert len(reveals) == 1
    assert (hits[0].amount_cents, hits[0].winners[0].seat) == (10_337, 3)
    assert (reveals[0].trigger_cents, reveals[0].salt) == (10_337, SALT)
    # The restart: reset $100.00 plus the $1.63 the winning wager put above the trigger.
    meter_is("tcp-mystery", "101.63")(outcome)
    conserved()(outcome)
    assert unarmed(outcome.state) == ("tcp-mystery",)


def test_a_mystery_hit_has_the_life_of_any_hit() -> None:
    # 649a.11(c)(5)(iii)-(iv): validated by a floorperson, then paid.
    scenario = armed_floor(10_000)
    scenario.events(*one_wager("r1"))
    (hit_id,) = scenario.state.hits
    hit_status(hit_id, "pending_validation")(scenario.when())
    scenario.events(validate(hit_id))
    hit_status(hit_id, "paid")(scenario.when(pay(hit_id)))


def test_a_trigger_sealed_in_this_process_refuses_the_lock_rather_than_guess() -> None:
    scenario = given(MYSTERY).events(arm("tcp-mystery", 10_100))  # never unsealed
    scenario.events(*locked_round("tcp-7", "r1", wager(1, "progressive", "5.00"))[:-1])
    outcome = scenario.when(locked())
    rejected("sealed")(outcome)


def test_only_wagers_take_a_mystery_level_up() -> None:
    # A correction or a transfer could pass the sealed trigger with nobody to win it.
    scenario = armed_floor(10_500)
    rejected("mystery level")(scenario.when(correct("tcp-mystery", sub("1.00"))))
    accepted()(scenario.when(correct("tcp-mystery", -sub("1.00"))))
    move = TransferMeter(
        command_id=BLANK,
        meter_id="tcp-progressive-5",
        to_meter_id="tcp-mystery",
        by="supervisor 1",
        approved_by="supervisor 2",
        reason="game leaves",
        occurred_at=BLANK,
    )
    rejected("mystery level")(scenario.when(move))


def test_arming_twice_is_refused() -> None:
    scenario = armed_floor(10_500)
    rejected("armed already")(scenario.when(arm("tcp-mystery", 10_600)))


def test_the_audit_accepts_a_fair_log_and_catches_a_changed_reveal() -> None:
    scenario = armed_floor(10_337)
    scenario.events(*one_wager("r1"), *one_wager("r2"))
    report = audit(scenario.log)
    assert report.ok
    assert [r.trigger_cents for r in report.reveals] == [10_337]
    forged = [
        dataclasses.replace(e, trigger_cents=10_300) if isinstance(e, MysteryRevealed) else e
        for e in scenario.log
    ]
    (check,) = audit(forged).reveals
    assert any("commitment" in p for p in check.problems)


def test_the_audit_catches_a_trigger_outside_the_armed_range() -> None:
    scenario = given(MYSTERY)
    outside = MysteryArmed(
        meter_id="tcp-mystery",
        commitment=commitment_of(11_500, SALT),
        sealed="x",
        reset_cents=10_000,
        must_hit_by_cents=11_000,
        occurred_at="t",
    )
    reveal = MysteryRevealed(
        meter_id="tcp-mystery",
        hit_id="h",
        commitment=outside.commitment,
        trigger_cents=11_500,
        salt=SALT,
        reset_cents=10_000,
        must_hit_by_cents=11_000,
        amount_cents=11_500,
        occurred_at="t",
    )
    (check,) = audit([*scenario.log, outside, reveal]).reveals
    assert any("outside [10000, 11000)" in p for p in check.problems)
    assert any("no hit" in p for p in check.problems)


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ('reset = "100.00"\nmust_hit_by = "100.00"\n', "must_hit_by"),
        ('reset = "100.00"\nmust_hit_by = "110.00"\npays = {}\n', "pays"),
    ],
)
def test_a_mystery_progressive_needs_a_range_and_no_paytable(extra: str, fragment: str) -> None:
    text = MYSTERY.replace(MYSTERY_PROGRESSIVE, "") + (
        '[progressives.mystery-5]\nkind = "mystery"\nprimary_rate = "0.5"\n' + extra
    )
    with pytest.raises(ConfigError, match=fragment):
        load_floor_config(text, "floor.toml")


def test_a_mystery_level_has_no_ceiling_and_takes_no_divert() -> None:
    capped = MYSTERY.replace(
        '[meters.tcp-mystery]\nprogressive = "mystery-5"\n',
        '[meters.tcp-mystery]\nprogressive = "mystery-5"\nceiling = "120.00"\n',
    )
    with pytest.raises(ConfigError, match="must_hit_by is its limit"):
        load_floor_config(capped, "floor.toml")
    diverting = MYSTERY.replace(
        '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\n',
        '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\nceiling = "2000.00"\n'
        'overflow = "divert:tcp-mystery"\n',
    )
    with pytest.raises(ConfigError, match="not a mystery level"):
        load_floor_config(diverting, "floor.toml")


def test_with_trigger_checks_the_commitment() -> None:
    scenario = given(MYSTERY).events(arm("tcp-mystery", 10_100))
    with pytest.raises(RuleViolation, match="commitment"):
        with_trigger(scenario.state, "tcp-mystery", 10_101, SALT)


def test_a_rejected_arming_changes_nothing() -> None:
    outcome = given(MYSTERY).when(arm("tcp-mystery", 10_100, salt="short"))
    assert isinstance(outcome.emitted[0], EventRejected)
    assert outcome.state == outcome.before
