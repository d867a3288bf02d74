"""Which events the reference's fold touches only in the entries they name.

`Session.reference` decides a table event on a state where only that table is brought up to date,
and `Session.adopt` drops only the records an event names: both hold only while every event is one
of `LOCAL_EVENTS` (``controller.evolve`` reads and writes no other entry for them). Anything else
(a configuration, a correction of the floor) makes the session adopt the whole state.
"""

from __future__ import annotations

from typing import Final

from controller.model.events import (
    ContributionRecorded,
    ContributionsReversed,
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    HitPaid,
    HitValidated,
    MeterCorrected,
    MeterSeeded,
    ProgressiveHit,
)
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    WagerPlaced,
    WagersLocked,
)

#: Events whose reference `evolve` touches only the entries their own ids name.
LOCAL_EVENTS: Final = (
    RoundOpened, WagerPlaced, WagersLocked, DecisionMade, RoundSettled, RoundVoided, MeterSeeded,
    ContributionRecorded, ContributionsReversed, MeterCorrected, ProgressiveHit, FixedAwarded,
    EnvyAwarded, EventRejected, HitValidated, HitPaid,
)  # fmt: skip


def local_to(event: Event, table_id: str) -> bool:
    """Whether adopting ``event`` touches no table but ``table_id`` (`Session.adopt`)."""
    return isinstance(event, LOCAL_EVENTS) and getattr(event, "table_id", "") in (table_id, "")
