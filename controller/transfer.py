"""Moving a pool's money and retiring its meter (PA 44 Pa.B. 599; Indiana 68 IAC 2-6-33). Pure.

A game leaves the floor: its tables' links to the meter are removed first (a configuration change,
which keeps the meter with a ``wager_unit`` of its own), then two supervisors move its whole pool
(amount, reserve, overflow) to another meter. The meter is retired: it accepts nothing more (no
link, divert or correction may name it again) and stays in every report. The receiving meter's
ceiling holds: whatever of the amount would pass it goes to that meter's overflow.
"""

from __future__ import annotations

from controller.ceiling import split_at_ceiling
from controller.config.floor import FloorConfig, MeterDef, load_floor_config
from controller.model.commands import TransferMeter
from controller.model.errors import RuleViolation
from controller.model.events import MeterTransferredIn, MeterTransferredOut
from controller.model.state import FloorState, MeterState


def transfer(
    state: FloorState, command: TransferMeter
) -> tuple[MeterTransferredOut, MeterTransferredIn]:
    """The two events of a transfer, or RuleViolation with the reason it is refused."""
    _check_people(command)
    config, source, target = _meters(state, command)
    _check_not_mystery(config, target.meter_id)
    _check_unlinked(config, source.meter_id)
    _check_unlinked_when_pending(state, source.meter_id)
    carry = MeterDef(
        meter_id=target.meter_id,
        progressive=config.meters[target.meter_id].progressive,
        unit_cents=config.meters[target.meter_id].unit_cents,
        ceiling_cents=config.meters[target.meter_id].ceiling_cents,
    )  # a transfer's excess is carried on the receiving meter, never sent further
    kept, excess, _ = split_at_ceiling(target, carry, source.amount_sub)
    who = {"by": command.by, "approved_by": command.approved_by, "reason": command.reason}
    out = MeterTransferredOut(
        meter_id=source.meter_id,
        to_meter_id=target.meter_id,
        amount_sub=source.amount_sub,
        reserve_sub=source.reserve_sub,
        overflow_sub=source.overflow_sub,
        meter_seq=source.seq + 1,
        occurred_at=command.occurred_at,
        idempotency_key=command.idempotency_key,  # a retry finds this record: the first answer
        request_digest=command.request_digest,
        **who,
    )
    arrived = MeterTransferredIn(
        meter_id=target.meter_id,
        from_meter_id=source.meter_id,
        amount_sub=kept,
        reserve_sub=source.reserve_sub,
        overflow_sub=source.overflow_sub + excess,
        meter_seq=target.seq + 1,
        occurred_at=command.occurred_at,
        **who,
    )
    return out, arrived


def _check_not_mystery(config: FloorConfig, meter_id: str) -> None:
    """A mystery level's trigger is sealed: money moved onto it could pass the trigger with no
    winner."""
    if config.meters[meter_id].mystery:
        msg = (
            f"meter {meter_id!r} is a mystery level: only wagers may take it toward its "
            "sealed trigger"
        )
        raise RuleViolation(msg)


def _check_unlinked_when_pending(state: FloorState, meter_id: str) -> None:
    """The configuration scheduled to apply must leave the meter unlinked too, or it would link
    the meter again once it applies."""
    if state.pending_config is not None:
        pending = state.pending_config
        try:
            _check_unlinked(load_floor_config(pending.text, pending.source), meter_id)
        except RuleViolation as exc:
            msg = f"the configuration scheduled as version {pending.version}: {exc}"
            raise RuleViolation(msg) from exc


def _check_people(command: TransferMeter) -> None:
    """Dual control: two different supervisors, and a reason."""
    if not command.by.strip() or not command.approved_by.strip() or not command.reason.strip():
        msg = "a transfer needs who made it (by), who approved it (approved_by) and why (reason)"
        raise RuleViolation(msg)
    if command.by.strip().casefold() == command.approved_by.strip().casefold():
        msg = (
            f"dual control: {command.by!r} cannot approve their own transfer; "
            "a second supervisor must"
        )
        raise RuleViolation(msg)


def _meters(
    state: FloorState, command: TransferMeter
) -> tuple[FloorConfig, MeterState, MeterState]:
    if state.config is None:
        msg = "no floor configuration is active yet"
        raise RuleViolation(msg)
    if command.meter_id == command.to_meter_id:
        msg = f"meter {command.meter_id!r} cannot be transferred to itself"
        raise RuleViolation(msg)
    found = []
    for meter_id in (command.meter_id, command.to_meter_id):
        meter = state.meters.get(meter_id)
        if meter is None or meter_id not in state.config.meters:
            msg = f"unknown meter {meter_id!r}"
            raise RuleViolation(msg)
        if meter.retired:
            msg = f"meter {meter_id!r} is retired: it accepts nothing more"
            raise RuleViolation(msg)
        found.append(meter)
    return state.config, found[0], found[1]


def _check_unlinked(config: FloorConfig, meter_id: str) -> None:
    """Nothing may reach the meter once it is retired: no table links it, no meter diverts to it."""
    tables = sorted(t for t, table in config.tables.items() if meter_id in table.links.values())
    diverts = sorted(m for m, meter in config.meters.items() if meter.divert_to == meter_id)
    if tables or diverts:
        names = ", ".join([*(f"table {t}" for t in tables), *(f"meter {m}" for m in diverts)])
        msg = f"meter {meter_id!r} is still linked ({names}); remove its links first"
        raise RuleViolation(msg)


def check_retired_stay_retired(state: FloorState, config: FloorConfig) -> None:
    """A configuration may not link a table or a divert to a retired meter again."""
    for meter_id, meter in state.meters.items():
        if not meter.retired:
            continue
        try:
            _check_unlinked(config, meter_id)
        except RuleViolation as exc:
            msg = f"meter {meter_id!r} is retired and may not be linked again ({exc})"
            raise RuleViolation(msg) from exc
