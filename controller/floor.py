"""The floor decider: ``decide(state, command) -> events`` and ``evolve(state, event) -> state``.

Replay is a fold: ``functools.reduce(evolve, events, FloorState())``, which `evolve_many` computes
with one new state per run of events instead of one per event. `decide` runs the table stage,
then prices each meter claim against the meter as it stands after the claims before it (so two hits
on one meter in a round are paid one after the other, 649a.12(e)(4)). It never raises for bad
input: a refusal is an `EventRejected` event with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.ceiling import onward_claim
from controller.config.change import activate, due_change
from controller.config.floor import FloorConfig
from controller.evolve import evolve, evolve_many
from controller.meter import (
    AnyClaim,
    ContributionClaim,
    HitClaim,
    ReversalClaim,
    decide_meter,
    evolve_meter,
)
from controller.model.commands import (
    ActivateConfig,
    CorrectMeter,
    OperatorCommand,
    PayHit,
    TransferMeter,
    ValidateHit,
)
from controller.model.errors import ConfigError, RuleViolation
from controller.model.events import (
    Event,
    EventRejected,
    HitPaid,
    HitValidated,
    MeterCorrected,
)
from controller.model.money import format_subunits
from controller.model.state import FloorState, MeterState
from controller.model.table_events import TableEvent
from controller.rules.table import decide_table
from controller.transfer import transfer

__all__ = ["decide", "evolve", "evolve_many", "replay", "run"]

Command = TableEvent | OperatorCommand


def decide(state: FloorState, command: Command) -> tuple[Event, ...]:
    """The events that accepting ``command`` produces, or one `EventRejected` with the reason."""
    try:
        match command:
            case ActivateConfig():
                return activate(state, command)
            case CorrectMeter():
                return (_correct(state, command),)
            case ValidateHit() | PayHit():
                return (_hit_life(state, command),)
            case TransferMeter():
                return transfer(state, command)
            case _:
                return _table_event(state, command)
    except RuleViolation as exc:
        return (_rejected(command, str(exc)),)
    except ConfigError as exc:
        return (_rejected(command, f"configuration refused: {exc}"),)


def _rejected(command: Command, reason: str) -> EventRejected:
    if isinstance(command, ActivateConfig | CorrectMeter | ValidateHit | PayHit | TransferMeter):
        return EventRejected(
            event_id=command.command_id,
            table_id="",
            event_type=type(command).__name__,
            reason=reason,
            occurred_at=command.occurred_at,
        )
    return EventRejected(
        event_id=command.event_id,
        table_id=command.table_id,
        event_type=command.TYPE,
        reason=reason,
        occurred_at=command.occurred_at,
    )


def _require_config(state: FloorState) -> FloorConfig:
    if state.config is None:
        msg = "no floor configuration is active yet; activate one before table events"
        raise RuleViolation(msg)
    return state.config


def _table_event(state: FloorState, event: TableEvent) -> tuple[Event, ...]:
    config = _require_config(state)
    steps = decide_table(config, state.tables.get(event.table_id), event)
    out: list[Event] = [event]
    working: dict[str, MeterState] = {}
    for step in steps:
        if not isinstance(step, ContributionClaim | ReversalClaim | HitClaim):
            out.append(step)
            continue
        claim: AnyClaim | None = step
        while claim is not None:  # a contribution above a ceiling may be diverted on (no loops)
            meter = working.get(claim.meter_id) or state.meters[claim.meter_id]
            meter_event = decide_meter(meter, config.meters[claim.meter_id], claim)
            working[claim.meter_id] = evolve_meter(meter, meter_event)
            out.append(meter_event)
            claim = onward_claim(meter_event)
    return (*out, *due_change(state, event, out))


def _correct(state: FloorState, command: CorrectMeter) -> MeterCorrected:
    """A meter goes down only by an award or an authorised correction that says who and why."""
    meter = state.meters.get(command.meter_id)
    if meter is None:
        msg = f"unknown meter {command.meter_id!r}"
        raise RuleViolation(msg)
    if meter.retired:
        msg = f"meter {command.meter_id!r} is retired: it accepts nothing more"
        raise RuleViolation(msg)
    if not command.by.strip() or not command.reason.strip():
        msg = "a meter correction needs who made it (by) and why (reason)"
        raise RuleViolation(msg)
    if (
        meter.amount_sub + command.amount_delta_sub < 0
        or meter.reserve_sub + command.reserve_delta_sub < 0
    ):
        msg = f"correction would make meter {command.meter_id!r} or its reserve negative"
        raise RuleViolation(msg)
    _check_below_ceiling(state, meter, command.amount_delta_sub)
    return MeterCorrected(
        meter_id=command.meter_id,
        amount_delta_sub=command.amount_delta_sub,
        reserve_delta_sub=command.reserve_delta_sub,
        by=command.by,
        reason=command.reason,
        meter_seq=meter.seq + 1,
        occurred_at=command.occurred_at,
    )


def _check_below_ceiling(state: FloorState, meter: MeterState, delta_sub: int) -> None:
    """A correction upwards never takes a meter above its ceiling (NY 5320.8: the meter never shows
    more); one downwards always may."""
    definition = state.config.meters.get(meter.meter_id) if state.config else None
    ceiling = None if definition is None else definition.ceiling_sub
    if ceiling is not None and delta_sub > 0 and meter.amount_sub + delta_sub > ceiling:
        msg = (
            f"correction would take meter {meter.meter_id!r} above its ceiling "
            f"{format_subunits(ceiling)}; a meter never shows more (NY 5320.8)"
        )
        raise RuleViolation(msg)


def _hit_life(state: FloorState, command: ValidateHit | PayHit) -> HitValidated | HitPaid:
    """Recognised -> validated -> paid, in that order only (649a.11(c)(5)(iii)-(iv))."""
    hit = state.hits.get(command.hit_id)
    if hit is None:
        msg = f"unknown hit {command.hit_id!r}"
        raise RuleViolation(msg)
    if isinstance(command, ValidateHit):
        if hit.status != "pending_validation":
            msg = f"hit {command.hit_id!r} is {hit.status}, not pending validation"
            raise RuleViolation(msg)
        return HitValidated(hit_id=hit.hit_id, by=command.by, occurred_at=command.occurred_at)
    if hit.status != "validated":
        msg = f"hit {command.hit_id!r} is {hit.status}; it must be validated before it is paid"
        raise RuleViolation(msg)
    return HitPaid(hit_id=hit.hit_id, by=command.by, occurred_at=command.occurred_at)


def replay(events: Iterable[Event], initial: FloorState | None = None) -> FloorState:
    """State from a log of events: a fold of `evolve`."""
    return evolve_many(initial or FloorState(), events)


def run(
    commands: Iterable[Command], state: FloorState | None = None
) -> tuple[FloorState, list[Event]]:
    """Decide and evolve a sequence of commands; the events it produced, in order."""
    current = state or FloorState()
    log: list[Event] = []
    for command in commands:
        events = decide(current, command)
        log.extend(events)
        current = evolve_many(current, events)
    return current, log
