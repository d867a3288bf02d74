"""Events the controller derives and records; each type has a stable string, never an import path.

Accepted table events (`controller.model.table_events`) are recorded as they came; these are the
rest.
Meter events carry ``meter_seq``, the meter's own operation number, so any consumer (the Redis
read model, a Kafka meter processor after redelivery) can tell a stale or repeated update from a new
one. Amounts on meters are in sub-units (`controller.model.money`), amounts paid are in whole cents.

What an operator command records carries its ``idempotency_key`` and ``request_digest``
(`controller.model.commands`): the log alone tells a retry from a new request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.model.table_events import TableEvent


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
class MeterSeeded:
    """A meter opened at its seed (649a.12(e)(3): "$1,000 for 1")."""

    TYPE: ClassVar[str] = "meter_seeded"
    meter_id: str
    amount_sub: int
    meter_seq: int
    occurred_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributionRecorded:
    """One locked progressive wager funding its meter at the primary and reserve rates."""

    TYPE: ClassVar[str] = "contribution_recorded"
    meter_id: str
    table_id: str
    round_id: str
    seat: int
    wager: str
    on: str
    wager_cents: int
    primary_sub: int
    reserve_sub: int
    meter_seq: int
    occurred_at: str
    overflow_sub: int = 0
    """The part of ``primary_sub`` above the meter's ceiling carried in its overflow (NY 5320.8,
    NJ 13:69E-1.39A: the meter never shows more than its ceiling)."""
    diverted_sub: int = 0
    """The part of ``primary_sub`` above the ceiling sent on to ``divert_to``."""
    divert_to: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributionDiverted:
    """The part of a contribution above another meter's ceiling, arriving on this meter
    (``overflow = "divert:<this meter>"``). A transfer in: it is not this meter's contribution, and
    it may itself be capped by this meter's ceiling (carried, or sent on further)."""

    TYPE: ClassVar[str] = "contribution_diverted"
    meter_id: str
    from_meter_id: str
    table_id: str
    round_id: str
    amount_sub: int
    meter_seq: int
    occurred_at: str
    overflow_sub: int = 0
    diverted_sub: int = 0
    divert_to: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributionsReversed:
    """A voided round's contributions taken back off the meter: a correction with its reason.

    ``primary_sub``/``reserve_sub`` are what was taken back; the ``requested_*`` amounts are what
    the round contributed. They differ when a 100% hit has since paid those contributions out, or
    a correction left the meter holding less: a void never drives a meter below zero.
    """

    TYPE: ClassVar[str] = "contributions_reversed"
    meter_id: str
    table_id: str
    round_id: str
    primary_sub: int
    reserve_sub: int
    count: int
    reason: str
    meter_seq: int
    occurred_at: str
    requested_primary_sub: int = 0
    requested_reserve_sub: int = 0
    overflow_sub: int = 0
    """Of ``primary_sub``, the part taken back from the overflow (the round's last contributions
    above the ceiling went there, so they are taken back first)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AwardShare:
    """One player's part of a progressive award (a dealer-hand jackpot may have several)."""

    seat: int
    amount_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgressiveHit:
    """A percentage-of-meter award recognised: the meter pays and, at 100%, resets.

    The hit then waits for floorperson validation and payment (649a.11(c)(5)(iii)-(iv)).
    """

    TYPE: ClassVar[str] = "progressive_hit"
    hit_id: str
    meter_id: str
    table_id: str
    round_id: str
    wager: str
    on: str
    hand: str
    cards: tuple[str, ...]
    share: str
    amount_cents: int
    winners: tuple[AwardShare, ...]
    meter_before_sub: int
    meter_after_sub: int
    reserve_before_sub: int
    reserve_after_sub: int
    reseed_sub: int
    meter_seq: int
    occurred_at: str
    reset: bool = False
    overflow_before_sub: int = 0
    overflow_after_sub: int = 0
    """A 100% hit restarts the meter at reseed + reserve + overflow; what would take the new
    start above the ceiling stays in the overflow (NY 5320.8). A partial hit leaves it alone."""


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
class MeterCorrected:
    """An authorised, reasoned correction of a meter (the only way down besides an award)."""

    TYPE: ClassVar[str] = "meter_corrected"
    meter_id: str
    amount_delta_sub: int
    reserve_delta_sub: int
    by: str
    reason: str
    meter_seq: int
    occurred_at: str
    second_by: str = ""
    """The second supervisor of a correction above the configured cap (dual control)."""
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class MeterTransferredOut:
    """A meter's whole pool moved to another meter under dual control; the meter is retired: it
    accepts nothing more and stays in every report (PA 44 Pa.B. 599; Indiana 68 IAC 2-6-33)."""

    TYPE: ClassVar[str] = "meter_transferred_out"
    meter_id: str
    to_meter_id: str
    amount_sub: int
    reserve_sub: int
    overflow_sub: int
    by: str
    approved_by: str
    reason: str
    meter_seq: int
    occurred_at: str
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class MeterTransferredIn:
    """A retired meter's pool arriving: its reserve to the reserve, its overflow and whatever of its
    amount would pass this meter's ceiling to the overflow, the rest to the meter."""

    TYPE: ClassVar[str] = "meter_transferred_in"
    meter_id: str
    from_meter_id: str
    amount_sub: int
    reserve_sub: int
    overflow_sub: int
    by: str
    approved_by: str
    reason: str
    meter_seq: int
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


MeterEvent = (
    MeterSeeded
    | ContributionRecorded
    | ContributionDiverted
    | ContributionsReversed
    | ProgressiveHit
    | MeterCorrected
    | MeterTransferredOut
    | MeterTransferredIn
)
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
