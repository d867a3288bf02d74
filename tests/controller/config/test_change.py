"""Configuration changes at a safe point (issue 3; rules README "Industry practice").

A change to a live meter's definition waits until that meter's next 100% hit, or until no table
linked to it is mid-round; it is logged with who and when, with the version it brings. Amounts here
are worked by hand: 649a.12(e) paytable A seeds $1,000 for 1 and adds 14% of each $1 wager.
"""

from __future__ import annotations

from controller.model.events import ConfigActivated, ConfigChangeScheduled
from tests.controller.scenario import (
    PA,
    accepted,
    activate,
    at,
    given,
    hit,
    locked_round,
    meter_is,
    pays,
    rejected,
    settled,
    voided,
    wager,
)

FIFTEEN = PA.replace('primary_rate = "14%"', 'primary_rate = "15%"')
DEALER = "2c 5d 8s"


def test_a_rate_change_waits_while_a_linked_table_is_mid_round() -> None:
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    outcome = scenario.when(activate(FIFTEEN, by="manager-2"))
    [scheduled] = outcome.emitted
    assert isinstance(scheduled, ConfigChangeScheduled)
    assert (scheduled.version, scheduled.by) == (2, "manager-2")
    assert "tcp-progressive" in scheduled.waiting_for
    assert scenario.state.config_version == 1
    # still 14% while the change waits: $1,000.14 + $0.14 at tcp-2
    scenario.when(*locked_round("tcp-2", "r1", wager(1, "progressive", "1.00"))).then(
        meter_is("tcp-progressive", "1000.28")
    )


def test_the_change_applies_when_the_link_goes_idle_and_new_wagers_use_it() -> None:
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(activate(FIFTEEN))
    outcome = scenario.when(voided("misdeal"))
    activated = [e for e in outcome.emitted if isinstance(e, ConfigActivated)]
    assert [e.version for e in activated] == [2]
    assert scenario.state.pending_config is None
    # the void took back $0.14; the next wager adds 15%: $1,000.00 + $0.15
    scenario.when(*locked_round("tcp-1", "r2", wager(1, "progressive", "1.00"))).then(
        meter_is("tcp-progressive", "1000.15")
    )


def test_the_change_applies_right_after_the_meters_next_hit() -> None:
    # tcp-2 stays mid-round, so the link is never idle; tcp-1's A-K-Q of spades resets the meter
    # (100% of $1,000.28, 649a.12(e)(1)) and the change applies at that hit.
    scenario = given().events(*locked_round("tcp-2", "r1", wager(1, "progressive", "1.00")))
    scenario.events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(activate(FIFTEEN))
    outcome = scenario.when(at(settled(dealer=DEALER, seats={1: "As Ks Qs"}), table="tcp-1"))
    outcome.then(pays(hit(1, "1000.28")))
    assert [e.version for e in outcome.emitted if isinstance(e, ConfigActivated)] == [2]


def test_adding_a_table_applies_at_once() -> None:
    extra = PA + '\n[tables.tcp-9]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "1.00"\n'
    extra += 'meters = { progressive = "tcp-progressive" }\n'
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.when(activate(extra)).then(accepted())
    assert scenario.state.config_version == 2
    assert scenario.state.config is not None
    assert "tcp-9" in scenario.state.config.tables


def without_five_dollar_tables() -> str:
    """The floor without tcp-7, tcp-8 and their meter tcp-progressive-5 (a valid configuration)."""
    text = PA[: PA.index("[tables.tcp-7]")]
    block = (
        '[meters.tcp-progressive-5]\nprogressive = "pa-649a12e-A"\n'
        'name = "$5 Three Card Poker Progressive"\n'
        'ceiling = "25000.00"\noverflow = "carry"\n'
    )
    assert block in text
    return text.replace(block, "")


def test_a_meter_with_money_is_never_removed() -> None:
    given().when(activate(without_five_dollar_tables())).then(rejected("never removed"))
