"""Meter events: what moves money on a progressive meter (a contribution, a hit, a correction, a
transfer), each with its ``meter_seq``, the meter's own operation number, so any consumer (the Redis
read model, a Kafka meter processor after redelivery) can tell a stale or repeated update from a new
one. Amounts on meters are in sub-units (`controller.model.money`). `controller.model.events` names
them with the controller's other derived events; import them from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


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
