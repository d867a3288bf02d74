"""The floor decider: ``decide(state, command) -> events`` and ``evolve(state, event) -> state``.

Replay is a fold: ``functools.reduce(evolve, events, FloorState())``, which `evolve_many` computes
with one new state per run of events instead of one per event. `decide` runs the table stage,
then prices each meter claim against the meter as it stands after the claims before it (so two hits
on one meter in a round are paid one after the other, 649a.12(e)(4)). It never raises for bad
input: a refusal is an `EventRejected` event with the reason.
"""

from __future__ import annotations

import unicodedata
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
    ArmMystery,
    CorrectMeter,
    OperatorCommand,
    PayHit,
    TransferMeter,
    ValidateHit,
)
from controller.model.errors import ConfigError, RuleViolation
from controller.model.events import (
    ContributionRecorded,
    Event,
    EventRejected,
    HitPaid,
    HitValidated,
    MeterCorrected,
)
from controller.model.money import (
    MAX_MONEY_CENTS,
    cents_to_subunits,
    format_cents,
    format_subunits,
)
from controller.model.state import FloorState, MeterState
from controller.model.table_events import TableEvent
from controller.mystery import arm, evolve_mystery, hit_at_trigger
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
            case ArmMystery():
                return (arm(state, command),)
            case _:
                return _table_event(state, command)
    except RuleViolation as exc:
        return (_rejected(command, str(exc)),)
    except ConfigError as exc:
        return (_rejected(command, f"configuration refused: {exc}"),)


def _rejected(command: Command, reason: str) -> EventRejected:
    if isinstance(command, OperatorCommand):
        return EventRejected(
            event_id=command.command_id,
            table_id="",
            event_type=type(command).__name__,
            reason=reason,
            occurred_at=command.occurred_at,
            idempotency_key=command.idempotency_key,
            request_digest=command.request_digest,
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
            if isinstance(meter_event, ContributionRecorded):  # a mystery level's trigger
                won = hit_at_trigger(
                    working[claim.meter_id], config.meters[claim.meter_id], meter_event
                )
                if won is not None:
                    after_hit = evolve_meter(working[claim.meter_id], won[0])
                    working[claim.meter_id] = evolve_mystery(after_hit, won[1])
                    out.extend(won)
            claim = onward_claim(meter_event)
    return (*out, *due_change(state, event, out))


def _correct(state: FloorState, command: CorrectMeter) -> MeterCorrected:
    """A meter goes down only by an award or an authorised correction that says who and why.

    Bounded (issue 15): not zero, a reason a person can read, neither meter nor reserve below
    zero or above the contract's money bound, and above the floor's ``correction_cap`` only with
    a second, different supervisor (``second_by``), whom the event names."""
    meter = state.meters.get(command.meter_id)
    if meter is None:
        msg = f"unknown meter {command.meter_id!r}"
        raise RuleViolation(msg)
    if meter.retired:
        msg = f"meter {command.meter_id!r} is retired: it accepts nothing more"
        raise RuleViolation(msg)
    if not command.by.strip() or not visible(command.reason):
        msg = "a meter correction needs who made it (by) and why (a reason with visible text)"
        raise RuleViolation(msg)
    if command.amount_delta_sub == 0 and command.reserve_delta_sub == 0:
        msg = "a correction of zero changes nothing; send the amount and/or reserve to move"
        raise RuleViolation(msg)
    _check_in_bounds(meter, command)
    _check_below_ceiling(state, meter, command.amount_delta_sub)
    _check_not_raising_mystery(state, meter, command)
    _check_second(state, command)
    return MeterCorrected(
        meter_id=command.meter_id,
        amount_delta_sub=command.amount_delta_sub,
        reserve_delta_sub=command.reserve_delta_sub,
        by=command.by,
        reason=command.reason,
        meter_seq=meter.seq + 1,
        occurred_at=command.occurred_at,
        second_by=command.second_by,
        idempotency_key=command.idempotency_key,
        request_digest=command.request_digest,
    )


def _check_in_bounds(meter: MeterState, command: CorrectMeter) -> None:
    """Neither the meter nor its reserve may end below zero or above the event contract's money
    bound (issue 15)."""
    amount = meter.amount_sub + command.amount_delta_sub
    reserve = meter.reserve_sub + command.reserve_delta_sub
    if amount < 0 or reserve < 0:
        msg = f"correction would make meter {command.meter_id!r} or its reserve negative"
        raise RuleViolation(msg)
    if max(amount, reserve) > cents_to_subunits(MAX_MONEY_CENTS):
        msg = (
            f"correction would take meter {command.meter_id!r} or its reserve over "
            f"{format_cents(MAX_MONEY_CENTS)}, the event contract's bound"
        )
        raise RuleViolation(msg)


def _check_not_raising_mystery(state: FloorState, meter: MeterState, command: CorrectMeter) -> None:
    """A mystery level moves up only by wagers: a correction could pass its sealed trigger with
    no winner (it may still go down)."""
    definition = state.config.meters.get(meter.meter_id) if state.config else None
    if definition is not None and definition.mystery and command.amount_delta_sub > 0:
        msg = (
            f"meter {command.meter_id!r} is a mystery level: only wagers move it up toward its "
            "sealed trigger (a correction could pass it with no winner)"
        )
        raise RuleViolation(msg)


def visible(text: str) -> bool:
    """Whether ``text`` holds something a person can read: a letter, digit, punctuation mark or
    symbol (a zero-width space or a control character alone is no reason)."""
    return any(unicodedata.category(c)[0] in "LNPS" for c in text)


def _check_second(state: FloorState, command: CorrectMeter) -> None:
    """Above the cap, a correction needs a second supervisor other than the first."""
    cap = _require_config(state).controls.correction_cap_cents
    moved = abs(command.amount_delta_sub) + abs(command.reserve_delta_sub)
    if moved <= cents_to_subunits(cap):
        return
    if not command.second_by.strip() or command.second_by == command.by:
        msg = (
            f"a correction of more than {format_cents(cap)} (correction_cap) needs a second, "
            f"different supervisor besides {command.by}"
        )
        raise RuleViolation(msg)


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
        return HitValidated(
            hit_id=hit.hit_id,
            by=command.by,
            occurred_at=command.occurred_at,
            idempotency_key=command.idempotency_key,
            request_digest=command.request_digest,
        )
    if hit.status != "validated":
        msg = f"hit {command.hit_id!r} is {hit.status}; it must be validated before it is paid"
        raise RuleViolation(msg)
    dual = _require_config(state).controls.dual_control_from_cents
    if dual is not None and hit.amount_cents >= dual and command.by == hit.validated_by:
        msg = (
            f"hit {command.hit_id!r} of {format_cents(hit.amount_cents)} is at or above "
            f"{format_cents(dual)} (dual_control_from): a second supervisor, not "
            f"{hit.validated_by} who validated it, pays it"
        )
        raise RuleViolation(msg)
    return HitPaid(
        validated_by=hit.validated_by,
        hit_id=hit.hit_id,
        by=command.by,
        occurred_at=command.occurred_at,
        idempotency_key=command.idempotency_key,
        request_digest=command.request_digest,
    )


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
