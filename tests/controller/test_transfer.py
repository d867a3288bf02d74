"""Moving a pool's money and retiring its meter (PA 44 Pa.B. 599: a game leaves the floor and its
progressive money moves to another progressive; Indiana 68 IAC 2-6-33 likewise), worked by hand.

The $5 tables tcp-7 and tcp-8 leave the floor: two $5 wagers have put 2 x 14% x $5 = $1.40 on
tcp-progressive-5 ($5,000 -> $5,001.40); their links are removed (the meter keeps its own
``wager_unit``), then two supervisors move the pool to tcp-progressive ($1,000 -> $6,001.40).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import given as given_steps

from controller.config.floor import load_floor_config
from controller.floor import run
from controller.model.commands import ActivateConfig, TransferMeter
from controller.model.errors import ConfigError
from controller.model.events import EventRejected, MeterTransferredIn, MeterTransferredOut
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.state import FloorState
from controller.reconciliation.liability import liability_lines
from controller.reconciliation.report import PositionWindow, reconcile
from tests.controller.scenario import (
    BLANK,
    PA,
    Command,
    Scenario,
    activate,
    conserved,
    correct,
    given,
    locked_round,
    meter_is,
    rejected,
    settled,
    sub,
    wager,
)
from tests.controller.test_properties import CAPPED_START, assert_conserved, commands
from tests.strategies import FLOOR_TABLES, SessionStep, sessions

LINK = 'meters = { progressive = "tcp-progressive-5" }\n'
METER = '[meters.tcp-progressive-5]\nprogressive = "pa-649a12e-A"\n'
UNLINKED = PA.replace(LINK, "").replace(METER, METER + 'wager_unit = "5.00"\n')


def transfer_to(
    target: str,
    source: str = "tcp-progressive-5",
    by: str = "supervisor 1",
    approved: str = "supervisor 2",
) -> TransferMeter:
    return TransferMeter(
        command_id=BLANK,
        meter_id=source,
        to_meter_id=target,
        by=by,
        approved_by=approved,
        reason="tcp-7 and tcp-8 leave the floor",
        occurred_at=BLANK,
    )


def five_dollar_floor(config: str = PA) -> Scenario:
    """Two $5 wagers settled at tcp-7 (no winner), then the links removed."""
    assert LINK in PA
    assert METER in PA
    return given(config).events(
        *locked_round(
            "tcp-7", "r1", wager(1, "progressive", "5.00"), wager(2, "progressive", "5.00")
        ),
        settled(dealer="2c 4d 7h", seats={1: "9d 5s 3h", 2: "8d 6s 3c"}),
        activate(config.replace(LINK, "").replace(METER, METER + 'wager_unit = "5.00"\n')),
    )


def test_the_whole_pool_moves_and_the_meter_retires() -> None:
    outcome = five_dollar_floor().when(transfer_to("tcp-progressive"))
    outcome.then(
        meter_is("tcp-progressive-5", "0", reserve="0"),
        meter_is("tcp-progressive", "6001.40"),
        conserved(),
    )
    assert outcome.meter("tcp-progressive-5").retired
    out, arrived = outcome.emitted
    assert isinstance(out, MeterTransferredOut)
    assert isinstance(arrived, MeterTransferredIn)
    assert (out.amount_sub, arrived.amount_sub) == (sub("5001.40"), sub("5001.40"))
    assert (out.by, out.approved_by) == ("supervisor 1", "supervisor 2")
    assert outcome.meter("tcp-progressive").transferred_sub == sub("5001.40")


def test_the_links_must_be_removed_first() -> None:
    given().when(transfer_to("tcp-progressive")).then(
        rejected("still linked", "table tcp-7", "table tcp-8", "remove its links first")
    )


def test_two_different_supervisors_are_needed() -> None:
    floor = five_dollar_floor()
    floor.when(transfer_to("tcp-progressive", approved="Supervisor 1 ")).then(
        rejected("dual control")
    )
    floor.when(transfer_to("tcp-progressive", approved="")).then(rejected("approved_by"))


def test_a_retired_meter_accepts_nothing_more() -> None:
    floor = five_dollar_floor()
    floor.events(transfer_to("tcp-progressive"))
    floor.when(correct("tcp-progressive-5", sub("1.00"))).then(rejected("retired"))
    floor.when(transfer_to("tcp-progressive")).then(rejected("retired"))
    floor.when(transfer_to("tcp-progressive-5", source="tcp-five-card")).then(rejected("retired"))
    floor.when(activate(PA)).then(rejected("retired", "may not be linked again"))


def test_the_receiving_ceiling_holds_and_the_excess_is_carried() -> None:
    # NY 5320.8: tcp-progressive capped at $1,000.20 keeps $0.20 of the $5,001.40; $5,001.20 is
    # carried in its overflow, to start the meter after its next 100% hit.
    capped = PA.replace(
        '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\n',
        '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\nceiling = "1000.20"\n',
    )
    outcome = five_dollar_floor(capped).when(transfer_to("tcp-progressive"))
    outcome.then(meter_is("tcp-progressive", "1000.20"), conserved())
    assert outcome.meter("tcp-progressive").overflow_sub == sub("5001.20")


def test_reconciliation_shows_the_transfer_out_and_in_to_the_sub_unit() -> None:
    floor = five_dollar_floor()
    floor.events(transfer_to("tcp-progressive"))
    report = reconcile(enumerate(floor.log, start=1), PositionWindow())
    assert report.balanced, report.findings
    meters = {m.meter_id: m for m in report.meters}
    assert meters["tcp-progressive-5"].flows.moved_out == (sub("5001.40"), 0, 0)
    assert meters["tcp-progressive"].flows.moved_in == (sub("5001.40"), 0, 0)
    lines = {line.meter_id: line for line in liability_lines("2026-01-01", report)}
    assert lines["tcp-progressive-5"].transfers_out_sub == sub("5001.40")
    assert lines["tcp-progressive"].transfers_in_sub == sub("5001.40")
    assert all(line.balanced for line in lines.values())
    assert "tcp-progressive-5" in meters  # a retired meter stays in every report


def test_the_unlinked_floor_is_a_valid_configuration() -> None:
    state, _ = run([activate(UNLINKED)])
    assert state.config is not None
    assert state.config.meters["tcp-progressive-5"].unit_cents == 500


def test_a_wager_unit_that_disagrees_with_the_linked_tables_is_refused() -> None:
    wrong = PA.replace(METER, METER + 'wager_unit = "1.00"\n')
    with pytest.raises(ConfigError) as info:
        load_floor_config(wrong, "floor.toml")
    assert info.value.key == "meters.tcp-progressive-5.progressive"
    assert "wager_unit" in info.value.expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given_steps(sessions(tables=FLOOR_TABLES[2:], operator_steps=False))
def test_any_pool_moves_whole_and_nothing_is_created_or_lost(steps: list[SessionStep]) -> None:
    # Rules README, Money: after any $5 session the whole pool (meter, reserve, overflow) of
    # tcp-progressive-5 lands on a capped tcp-progressive, to the sub-unit.
    capped = CAPPED_START.text
    state = FloorState()
    for _, _, after in commands(steps, CAPPED_START):
        state = after
    source_before = state.meters["tcp-progressive-5"].held_sub()
    target_before = state.meters["tcp-progressive"].held_sub()
    unlinked = capped.replace(LINK, "").replace(METER, METER + 'wager_unit = "5.00"\n')
    moves: list[Command] = [
        ActivateConfig(command_id="c", source="u", text=unlinked, by="m", occurred_at="t"),
        replace(transfer_to("tcp-progressive"), command_id="t", occurred_at="t"),
    ]
    state, log = run(moves, state)
    assert not [e for e in log if isinstance(e, EventRejected)], log
    assert_conserved(state)
    assert state.meters["tcp-progressive-5"].held_sub() == 0
    assert state.meters["tcp-progressive"].held_sub() == target_before + source_before
    assert state.meters["tcp-progressive"].amount_sub <= 100_050 * SUBUNITS_PER_CENT


def test_a_transfer_that_leaves_money_behind_or_an_event_after_retirement_is_flagged() -> None:
    floor = five_dollar_floor()
    floor.events(transfer_to("tcp-progressive"))
    log = list(floor.log)
    index = next(i for i, e in enumerate(log) if isinstance(e, MeterTransferredOut))
    out = log[index]
    assert isinstance(out, MeterTransferredOut)
    log[index] = replace(out, amount_sub=out.amount_sub - 1)  # one sub-unit left behind
    log.append(replace(out, meter_seq=out.meter_seq + 1, amount_sub=0))  # after retirement
    report = reconcile(enumerate(log, start=1), PositionWindow())
    kinds = {(f.kind, f.meter_id, f.positions) for f in report.findings}
    assert ("retired", "tcp-progressive-5", (index + 1,)) in kinds
    assert ("retired", "tcp-progressive-5", (len(log),)) in kinds
    assert not report.balanced


def test_a_scheduled_configuration_that_still_links_the_meter_blocks_the_transfer() -> None:
    # Retired means nothing reaches it again: not even a change already waiting for a safe point.
    floor = five_dollar_floor()
    relinking = UNLINKED.replace('primary_rate = "14%"', 'primary_rate = "15%"', 1)
    relinking = relinking.replace(
        '[tables.tcp-7]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "5.00"\n',
        '[tables.tcp-7]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "5.00"\n' + LINK,
    )
    assert relinking.count(LINK) == 1
    floor.events(*locked_round("tcp-1", "r9", wager(1, "progressive", "1.00")), activate(relinking))
    assert floor.state.pending_config is not None  # the rate change waits for tcp-1's round
    floor.when(transfer_to("tcp-progressive")).then(rejected("scheduled", "table tcp-7"))
