"""What the table stage owes a meter: claims, settled by the meter stage (`controller.meter`).

A claim says *what* is owed (a contribution at the rates in force, a voided round's contributions
to take back, a winning hand's share), never *how much* a share of the meter is: that is read from
the meter when the claim is settled (649a.12(e)(4)). Plain frozen data, so the Kafka engine can
carry claims between the table and meter partitions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from controller.ceiling import DivertClaim


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributionClaim:
    """A locked wager's contribution, computed by the table stage at the rates in force."""

    meter_id: str
    table_id: str
    round_id: str
    seat: int
    wager: str
    on: str
    wager_cents: int
    primary_sub: int
    reserve_sub: int
    occurred_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReversalClaim:
    """A voided round's contributions to take back (a correction with a reason)."""

    meter_id: str
    table_id: str
    round_id: str
    primary_sub: int
    reserve_sub: int
    count: int
    reason: str
    occurred_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HitClaim:
    """A winning hand owed a share of the meter; ``recipients`` in settlement order."""

    meter_id: str
    table_id: str
    round_id: str
    wager: str
    on: str
    hand: str
    cards: tuple[str, ...]
    share: Fraction
    recipients: tuple[int, ...]
    occurred_at: str
    source_seq: int = 0


MeterClaim = ContributionClaim | ReversalClaim | HitClaim
"""What the table stage may owe a meter."""
AnyClaim = MeterClaim | DivertClaim
"""What the meter stage settles: the table stage's claims and the diverts it makes itself."""
