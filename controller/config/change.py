"""Configuration changes: versioned, logged with who and when, applied only at a safe point.

A configuration that only adds tables and meters, or changes idle tables, applies at once. One
that changes a live meter's definition (rates, paytable, reseed) is scheduled with the tables it
touches (each table it changes, and each linked to a meter it changes, before or after) and
activates only when none of them has a round open, checked at activation, on every table event
while it waits (issue 15: a check at scheduling alone let a change land on a table mid-round).
A meter with money on it is never removed, and a table is never changed mid-round. One change
waits at a time: a new one replaces it only when it names it (``replaces``), and both the
replacement and the activation are logged.

A meter's ceiling and overflow are not waited for: a ceiling may be raised at any time, and
lowered only to an amount not below what the meter holds now (Maryland COMAR 36.04.01.30); a
change below is refused with the reason. A configuration that changes a ceiling and something
else waits for the safe point as a whole.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache

from controller.config.floor import FloorConfig, load_floor_config
from controller.meter import seed_meter
from controller.model.commands import ActivateConfig
from controller.model.errors import RuleViolation
from controller.model.events import ConfigActivated, ConfigChangeScheduled, Event
from controller.model.money import format_subunits
from controller.model.state import FloorState, MeterState
from controller.model.table_events import RoundSettled, RoundVoided, TableEvent
from controller.transfer import check_retired_stay_retired


@lru_cache(maxsize=4)
def parsed(text: str, source: str) -> FloorConfig:
    """`load_floor_config`, remembered for the few texts in play: a pending change is looked at
    on every table event while it waits, and the edge parses a new text before the core does."""
    return load_floor_config(text, source)


def activate(state: FloorState, command: ActivateConfig) -> tuple[Event, ...]:
    """Apply a configuration now, or schedule it for the safe point of the tables it touches."""
    _check_replaces(state, command)
    config = parsed(command.text, command.source)
    changed: tuple[str, ...] = ()
    touched: tuple[str, ...] = ()
    if state.config is not None:
        _check_tables(state, state.config, config)
        _check_ceilings(state, state.config, config)
        check_retired_stay_retired(state, config)
        changed = _changed_meters(state.config, config)
        touched = touched_tables(state.config, config, changed)
    activated = ConfigActivated(
        version=state.config_version + 1,
        source=command.source,
        text=command.text,
        digest=hashlib.sha256(command.text.encode()).hexdigest(),
        by=command.by,
        occurred_at=command.occurred_at,
        replaces=command.replaces,
        idempotency_key=command.idempotency_key,
        request_digest=command.request_digest,
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
        tables=touched,
        replaces=command.replaces,
        idempotency_key=command.idempotency_key,
        request_digest=command.request_digest,
    )
    return (scheduled,)


def _check_replaces(state: FloorState, command: ActivateConfig) -> None:
    """A pending change is replaced only by a command that names its version."""
    pending = state.pending_config
    if pending is None and command.replaces:
        msg = f"no configuration change is pending; replaces={command.replaces} names none"
        raise RuleViolation(msg)
    if pending is not None and command.replaces != pending.version:
        msg = (
            f"configuration version {pending.version} (by {pending.by} at {pending.occurred_at}) "
            f"is pending, waiting for {', '.join(pending.waiting_for)}; to replace it, send "
            f"replaces={pending.version}"
        )
        raise RuleViolation(msg)


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


def touched_tables(old: FloorConfig, new: FloorConfig, changed: Sequence[str]) -> tuple[str, ...]:
    """Tables a change touches: changed, or linked to a changed meter in either configuration."""
    meters = set(changed)
    touched = {
        table_id
        for config in (old, new)
        for table_id, table in config.tables.items()
        if meters.intersection(table.links.values())
    }
    touched.update(t for t in old.tables if t in new.tables and new.tables[t] != old.tables[t])
    return tuple(sorted(touched))


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
    """The scheduled configuration's activation, if no table it touches has a round open once
    ``trigger`` is applied; else nothing. ``produced`` is what the trigger produced (unused since
    a hit no longer opens a safe point by itself: another linked table may be mid-round)."""
    del produced
    pending = state.pending_config
    if pending is None or state.config is None:
        return ()
    config = parsed(pending.text, pending.source)
    tables = pending.tables or touched_tables(state.config, config, pending.waiting_for)
    if any(_busy(state, table_id, trigger) for table_id in tables):
        return ()
    event = ConfigActivated(
        version=pending.version,
        source=pending.source,
        text=pending.text,
        digest=pending.digest,
        by=pending.by,
        occurred_at=trigger.occurred_at,
        replaces=pending.replaces,
        idempotency_key=pending.idempotency_key,
        request_digest=pending.request_digest,
    )
    return _activated(state, config, event)


def _busy(state: FloorState, table_id: str, trigger: TableEvent) -> bool:
    """Whether ``table_id`` has a round open once ``trigger`` is applied."""
    if table_id == trigger.table_id:
        return not isinstance(trigger, RoundSettled | RoundVoided)
    table = state.tables.get(table_id)
    current = table.round if table is not None else None
    return current is not None and current.phase in ("open", "locked")
