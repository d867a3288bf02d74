"""Configuration changes: versioned, logged with who and when, applied only at a safe point.

A configuration that only adds tables and meters, or changes idle tables, applies at once. One
that changes a live meter's definition (rates, paytable, reseed) is scheduled and applies when
every meter it changes is at a safe point (industry practice, rules README): right after that
meter's next 100% hit, or when no table linked to it is mid-round. A meter with money on it is
never removed, and a table is never changed mid-round.

A meter's ceiling and overflow are not waited for: a ceiling may be raised at any time, and
lowered only to an amount not below what the meter holds now (Maryland COMAR 36.04.01.30); a
change below is refused with the reason. A configuration that changes a ceiling and something
else waits for the safe point as a whole.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from controller.config.floor import FloorConfig, load_floor_config
from controller.meter import seed_meter
from controller.model.commands import ActivateConfig
from controller.model.errors import RuleViolation
from controller.model.events import ConfigActivated, ConfigChangeScheduled, Event, ProgressiveHit
from controller.model.money import format_subunits
from controller.model.state import FloorState, MeterState
from controller.model.table_events import RoundSettled, RoundVoided, TableEvent
from controller.transfer import check_retired_stay_retired


def activate(state: FloorState, command: ActivateConfig) -> tuple[Event, ...]:
    """Apply a configuration now, or schedule it for the safe point of the meters it changes."""
    config = load_floor_config(command.text, command.source)
    changed: tuple[str, ...] = ()
    if state.config is not None:
        _check_tables(state, state.config, config)
        _check_ceilings(state, state.config, config)
        check_retired_stay_retired(state, config)
        changed = _changed_meters(state.config, config)
    activated = ConfigActivated(
        version=state.config_version + 1,
        source=command.source,
        text=command.text,
        digest=hashlib.sha256(command.text.encode()).hexdigest(),
        by=command.by,
        occurred_at=command.occurred_at,
    )
    if not changed:
        return _activated(state, config, activated)
    scheduled = ConfigChangeScheduled(
        version=activated.version,
        source=activated.source,
        text=activated.text,
        digest=activated.digest,
        by=activated.by,
        occurred_at=activated.occurred_at,
        waiting_for=changed,
    )
    return (scheduled,)


def _activated(state: FloorState, config: FloorConfig, event: ConfigActivated) -> tuple[Event, ...]:
    seeds = tuple(
        seed_meter(MeterState(meter_id=mid), definition, event.occurred_at)
        for mid, definition in config.meters.items()
        if mid not in state.meters
    )
    return (event, *seeds)


def _changed_meters(old: FloorConfig, new: FloorConfig) -> tuple[str, ...]:
    for meter_id in old.meters:
        if meter_id not in new.meters:
            msg = f"meter {meter_id!r} would vanish; a meter with money on it is never removed"
            raise RuleViolation(msg)
    return tuple(
        m
        for m, meter in old.meters.items()
        if new.meters[m].without_limits() != meter.without_limits()
    )


def _check_ceilings(state: FloorState, old: FloorConfig, new: FloorConfig) -> None:
    """A changed ceiling is never below what the meter holds now (Maryland COMAR 36.04.01.30)."""
    for meter_id, definition in new.meters.items():
        before = old.meters.get(meter_id)
        ceiling = definition.ceiling_sub
        meter = state.meters.get(meter_id)
        if ceiling is None or meter is None or (before and before.ceiling_sub == ceiling):
            continue
        if ceiling < meter.amount_sub:
            msg = (
                f"meter {meter_id!r} stands at {format_subunits(meter.amount_sub)}: its ceiling "
                f"may be lowered only to that amount or above, not to "
                f"{format_subunits(ceiling)} (Maryland COMAR 36.04.01.30)"
            )
            raise RuleViolation(msg)


def _check_tables(state: FloorState, old: FloorConfig, new: FloorConfig) -> None:
    for table_id, table in state.tables.items():
        current = table.round
        live = current is not None and current.phase in ("open", "locked")
        if live and current is not None and new.tables.get(table_id) != old.tables.get(table_id):
            msg = (
                f"table {table_id!r} has round {current.round_id!r} {current.phase}; change "
                "its configuration after the round is settled or voided"
            )
            raise RuleViolation(msg)


def due_change(
    state: FloorState, trigger: TableEvent, produced: Sequence[Event]
) -> tuple[Event, ...]:
    """The scheduled configuration's activation, if ``trigger`` (with what it produced) brought
    every meter it waits for to a safe point; else nothing."""
    pending = state.pending_config
    if pending is None or state.config is None:
        return ()
    reset = {e.meter_id for e in produced if isinstance(e, ProgressiveHit) and e.reset}
    if not all(m in reset or _idle(state, m, trigger) for m in pending.waiting_for):
        return ()
    config = load_floor_config(pending.text, pending.source)
    event = ConfigActivated(
        version=pending.version,
        source=pending.source,
        text=pending.text,
        digest=pending.digest,
        by=pending.by,
        occurred_at=trigger.occurred_at,
    )
    return _activated(state, config, event)


def _idle(state: FloorState, meter_id: str, trigger: TableEvent) -> bool:
    """No table linked to the meter is mid-round once ``trigger`` is applied."""
    assert state.config is not None
    for table_id, table_def in state.config.tables.items():
        if meter_id not in table_def.links.values():
            continue
        if table_id == trigger.table_id:
            busy = not isinstance(trigger, RoundSettled | RoundVoided)
        else:
            table = state.tables.get(table_id)
            current = table.round if table is not None else None
            busy = current is not None and current.phase in ("open", "locked")
        if busy:
            return False
    return True
