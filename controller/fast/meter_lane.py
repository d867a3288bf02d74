"""The meter lane's sure answers and next states, built without the reference's keyword passes.

`meter_event` is `decide_meter` and `next_meter` is `evolve_meter` for a contribution (built
positionally: field for field the same, ``tests/controller/fast/test_lane.py``), anything else by
the reference itself. The records are built by `builder`'s functions unless the worker installs
faster makers of the same objects (`controller.fast.lane.install`, which calls `install` here).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, Final

from controller.ceiling import split_at_ceiling
from controller.config.floor import MeterDef
from controller.fast.build import builder
from controller.meter import AnyClaim, ContributionClaim, decide_meter
from controller.meter_evolve import _with_contribution, evolve_meter
from controller.model.events import ContributionRecorded, MeterEvent
from controller.model.state import MeterState

#: `MeterState`'s fields in the order `_meter` takes them; a class with other fields turns the
#: positional path off (`next_meter` is then `evolve_meter`).
METER_FIELDS: Final = (
    "meter_id", "amount_sub", "reserve_sub", "seeded_sub", "contributed_sub", "contributions",
    "paid_sub", "corrected_sub", "hits", "seq", "overflow_sub", "transferred_sub", "retired",
    "mystery_commitment", "mystery_sealed", "mystery_trigger_cents", "mystery_salt",
    "open_rounds",
)  # fmt: skip
_meter = builder(MeterState, METER_FIELDS)
METER_PLAIN: Final = tuple(f.name for f in fields(MeterState)) == METER_FIELDS


def next_meter(meter: MeterState, event: MeterEvent) -> MeterState:
    """``evolve_meter(meter, event)``; a contribution as `_contributed` writes it (the same sums,
    every other field carried over)."""
    if type(event) is not ContributionRecorded or not METER_PLAIN:
        return evolve_meter(meter, event)
    m, e = meter, event
    return _meter(
        m.meter_id,
        m.amount_sub + e.primary_sub - e.overflow_sub - e.diverted_sub,
        m.reserve_sub + e.reserve_sub,
        m.seeded_sub,
        m.contributed_sub + e.primary_sub + e.reserve_sub,
        m.contributions + 1,
        m.paid_sub,
        m.corrected_sub,
        m.hits,
        e.meter_seq,
        m.overflow_sub + e.overflow_sub,
        m.transferred_sub - e.diverted_sub,
        m.retired,
        m.mystery_commitment,
        m.mystery_sealed,
        m.mystery_trigger_cents,
        m.mystery_salt,
        _with_contribution(m.open_rounds, e),
    )


_RECORDED_FIELDS: Final = (
    "meter_id", "table_id", "round_id", "seat", "wager", "on", "wager_cents", "primary_sub",
    "reserve_sub", "meter_seq", "occurred_at", "overflow_sub", "diverted_sub", "divert_to",
)  # fmt: skip
_recorded = builder(ContributionRecorded, _RECORDED_FIELDS)


def meter_event(meter: MeterState, definition: MeterDef, claim: AnyClaim) -> MeterEvent:
    """``decide_meter(meter, definition, claim)``; a contribution as `_contribution` builds it."""
    if type(claim) is not ContributionClaim:
        return decide_meter(meter, definition, claim)
    c = claim
    _, overflow, diverted = split_at_ceiling(meter, definition, c.primary_sub)
    divert_to = definition.divert_to if diverted else ""
    head = (c.meter_id, c.table_id, c.round_id, c.seat, c.wager, c.on, c.wager_cents)
    return _recorded(*head, c.primary_sub, c.reserve_sub, meter.seq + 1, c.occurred_at,
                     overflow, diverted, divert_to)  # fmt: skip


def install(make: Callable[[type, tuple[str, ...]], Callable[..., Any]]) -> None:
    """`controller.fast.lane.install`'s meter half: ``make(cls, given)`` builds the same objects
    as ``builder(cls, given)``."""
    global _meter, _recorded  # noqa: PLW0603 - read per call, rebound once
    _meter = make(MeterState, METER_FIELDS)
    _recorded = make(ContributionRecorded, _RECORDED_FIELDS)
