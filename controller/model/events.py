"""Events the controller derives and records; each type has a stable string, never an import path.

Accepted table events (`controller.model.table_events`) are recorded as they came; these are the
rest. The meter events (`controller.model.meter_events`, named here too) carry ``meter_seq``, the
meter's own operation number. Amounts on meters are in sub-units (`controller.model.money`), amounts
paid are in whole cents.

What an operator command records carries its ``idempotency_key`` and ``request_digest``
(`controller.model.commands`): the log alone tells a retry from a new request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.model.meter_events import (
    AwardShare,
    ContributionDiverted,
    ContributionRecorded,
    ContributionsReversed,
    MeterCorrected,
    MeterEvent,
    MeterSeeded,
    MeterTransferredIn,
    MeterTransferredOut,
    ProgressiveHit,
)
from controller.model.table_events import TableEvent

__all__ = [
    "DERIVED_EVENT_TYPES",
    "AwardShare",
    "ConfigActivated",
    "ConfigChangeScheduled",
    "ContributionDiverted",
    "ContributionRecorded",
    "ContributionsReversed",
    "DerivedEvent",
    "EnvyAwarded",
    "Event",
    "EventRejected",
    "FixedAwarded",
    "HitPaid",
    "HitValidated",
    "MeterCorrected",
    "MeterEvent",
    "MeterSeeded",
    "MeterTransferredIn",
    "MeterTransferredOut",
    "MysteryArmed",
    "MysteryRevealed",
    "ProgressiveHit",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigActivated:
    """A floor configuration came into force (the first one, or a change at a safe point)."""

    TYPE: ClassVar[str] = "config_activated"
    version: int
    source: str
    text: str
    digest: str
    by: str
    occurred_at: str
    replaces: int = 0
    """The version of the pending change this one replaced, named by the supervisor (0: none)."""
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigChangeScheduled:
    """A configuration that changes live meters, waiting for a safe point (industry practice: a
    change applies after the meter's next 100% hit or when no linked table is mid-round)."""

    TYPE: ClassVar[str] = "config_change_scheduled"
    version: int
    source: str
    text: str
    digest: str
    by: str
    occurred_at: str
    waiting_for: tuple[str, ...]
    tables: tuple[str, ...] = ()
    """The tables the change touches (changed, or linked to a changed meter, before or after):
    it activates only when none of them has a round open."""
    replaces: int = 0
    """The version of the pending change this one replaced, named by the supervisor (0: none)."""
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class FixedAwarded:
    """A "for 1" award (includes Magic Card and Lucky Bonus); paid at the table, not from a
    meter."""

    TYPE: ClassVar[str] = "fixed_awarded"
    meter_id: str
    table_id: str
    round_id: str
    seat: int
    wager: str
    on: str
    hand: str
    cards: tuple[str, ...]
    amount_cents: int
    occurred_at: str
    hit_id: str = ""
    """Set when a floorperson must verify it before it is paid (649a.11(c)(8)(ii)): the award
    then has the life of a hit, recognised -> validated -> paid."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvyAwarded:
    """An Envy Bonus: a fixed sum for another player's qualifying hand (649a.11(c)(5)(v))."""

    TYPE: ClassVar[str] = "envy_awarded"
    meter_id: str
    table_id: str
    round_id: str
    seat: int
    holder_seat: int
    wager: str
    hand: str
    cards: tuple[str, ...]
    amount_cents: int
    occurred_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MysteryArmed:
    """A mystery level's trigger was drawn at the edge and fixed: the log records only the
    commitment (SHA-256 of trigger and salt, `controller.mystery.commitment_of`) and the trigger
    sealed under a key kept apart from the log. Nobody reading the log can learn the trigger; the
    hit's `MysteryRevealed` lets anybody check it was fixed here, in range (GLI-12 mystery
    progressives; N.J.A.C. 13:69E-1.39B)."""

    TYPE: ClassVar[str] = "mystery_armed"
    meter_id: str
    commitment: str
    sealed: str
    reset_cents: int
    must_hit_by_cents: int
    occurred_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MysteryRevealed:
    """A mystery level hit at its trigger: the trigger and salt behind the arming's commitment,
    published with the hit (``hit_id``) so that anyone can verify it (`jackpot mystery-audit`)."""

    TYPE: ClassVar[str] = "mystery_revealed"
    meter_id: str
    hit_id: str
    commitment: str
    trigger_cents: int
    salt: str
    reset_cents: int
    must_hit_by_cents: int
    amount_cents: int
    occurred_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HitValidated:
    """A floorperson or above validated a progressive hit (649a.11(c)(5)(iii))."""

    TYPE: ClassVar[str] = "hit_validated"
    hit_id: str
    by: str
    occurred_at: str
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class HitPaid:
    """A validated hit was paid to the patron, with documentation (649a.11(c)(5)(iv))."""

    TYPE: ClassVar[str] = "hit_paid"
    hit_id: str
    by: str
    occurred_at: str
    validated_by: str = ""
    """Who validated it: for an award at or above ``dual_control_from`` not the payer."""
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class EventRejected:
    """Input the rules refused: the dead-letter record, with the reason and (at the edge) the raw
    input as received. It changes nothing else."""

    TYPE: ClassVar[str] = "event_rejected"
    event_id: str
    table_id: str
    event_type: str
    reason: str
    occurred_at: str
    raw: str = ""
    idempotency_key: str = ""
    request_digest: str = ""


DerivedEvent = (
    ConfigActivated
    | ConfigChangeScheduled
    | MeterEvent
    | FixedAwarded
    | EnvyAwarded
    | MysteryArmed
    | MysteryRevealed
    | HitValidated
    | HitPaid
    | EventRejected
)
Event = TableEvent | DerivedEvent
DERIVED_EVENT_TYPES: dict[str, type[DerivedEvent]] = {
    cls.TYPE: cls
    for cls in (
        ConfigActivated,
        ConfigChangeScheduled,
        MeterSeeded,
        ContributionRecorded,
        ContributionDiverted,
        ContributionsReversed,
        ProgressiveHit,
        MeterCorrected,
        MeterTransferredOut,
        MeterTransferredIn,
        FixedAwarded,
        EnvyAwarded,
        MysteryArmed,
        MysteryRevealed,
        HitValidated,
        HitPaid,
        EventRejected,
    )
}
