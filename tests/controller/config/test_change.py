"""Configuration changes at a safe point (issue 3; rules README "Industry practice").

A change to a live meter's definition waits until that meter's next 100% hit, or until no table
linked to it is mid-round; it is logged with who and when, with the version it brings. Amounts here
are worked by hand: 649a.12(e) paytable A seeds $1,000 for 1 and adds 14% of each $1 wager.
"""

from __future__ import annotations

from dataclasses import replace

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


def test_a_hit_is_no_safe_point_while_another_linked_table_is_mid_round() -> None:
    # Issue 15, finding 2: tcp-1's A-K-Q of spades resets the meter (100% of $1,000.28,
    # 649a.12(e)(1)) while tcp-2 is mid-round on it: the change waits for tcp-2, checked at
    # activation, and applies when tcp-2's round is settled.
    scenario = given().events(*locked_round("tcp-2", "r1", wager(1, "progressive", "1.00")))
    scenario.events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(activate(FIFTEEN))
    outcome = scenario.when(at(settled(dealer=DEALER, seats={1: "3h 7d 9h"}), table="tcp-1"))
    assert not [e for e in outcome.emitted if isinstance(e, ConfigActivated)]
    outcome = scenario.when(at(settled(dealer=DEALER, seats={1: "As Ks Qs"}), table="tcp-2"))
    outcome.then(pays(hit(1, "1000.28")))
    assert [e.version for e in outcome.emitted if isinstance(e, ConfigActivated)] == [2]


SIX_SEATS_AND_FIFTEEN = FIFTEEN.replace(
    '[tables.tcp-8]\ngame = "three_card_poker"\nseats = 7',
    '[tables.tcp-8]\ngame = "three_card_poker"\nseats = 6',
)


def test_the_issue_15_change_waits_for_the_table_it_changes() -> None:
    """Scheduled while idle: tcp-8 from 7 seats to 6 and a new rate for paytable A (both of its
    meters, tcp-progressive and tcp-progressive-5). A 100% hit at tcp-7 while tcp-8 has a round
    open with a wager on seat 7 must not activate it (the issue saw a 5,000.70 hit recorded for a
    seat the active configuration no longer had)."""
    assert SIX_SEATS_AND_FIFTEEN.count("seats = 6") == 1
    scenario = given()
    [scheduled] = scenario.when(activate(SIX_SEATS_AND_FIFTEEN)).emitted
    assert isinstance(scheduled, ConfigChangeScheduled)
    assert scheduled.tables == tuple(f"tcp-{n}" for n in range(1, 9))
    scenario.events(*locked_round("tcp-8", "r1", wager(7, "progressive", "5.00")))
    scenario.events(*locked_round("tcp-7", "r1", wager(1, "progressive", "5.00")))
    outcome = scenario.when(at(settled(dealer=DEALER, seats={1: "As Ks Qs"}), table="tcp-7"))
    assert [e for e in outcome.emitted if isinstance(e, ConfigActivated)] == []
    assert scenario.state.config_version == 1  # tcp-8 still has its 7 seats
    outcome = scenario.when(at(settled(dealer=DEALER, seats={7: "3h 7d 9h"}), table="tcp-8"))
    outcome.then(accepted())
    assert [e.version for e in outcome.emitted if isinstance(e, ConfigActivated)] == [2]
    assert scenario.state.config is not None
    assert scenario.state.config.tables["tcp-8"].seats == 6


def test_a_pending_change_is_replaced_only_by_naming_it() -> None:
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    scenario.events(activate(FIFTEEN))
    sixteen = PA.replace('primary_rate = "14%"', 'primary_rate = "16%"')
    scenario.when(activate(sixteen)).then(rejected("version 2", "is pending", "replaces=2"))
    assert scenario.state.pending_config is not None
    assert scenario.state.pending_config.text == FIFTEEN
    scenario.when(replace(activate(sixteen), replaces=3)).then(rejected("replaces=2"))
    [replacing] = scenario.when(replace(activate(sixteen, by="manager-2"), replaces=2)).emitted
    assert isinstance(replacing, ConfigChangeScheduled)
    assert (replacing.replaces, replacing.by, replacing.text) == (2, "manager-2", sixteen)


def test_naming_a_pending_change_when_none_waits_is_refused() -> None:
    given().when(replace(activate(FIFTEEN), replaces=2)).then(rejected("no configuration change"))


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
