"""The lock's contributions (`controller.fast.hot.decide_lock`): each linked wager priced on its
meter, then recorded as one `ContributionRecorded` on the meter and the round.

Its own module because pricing and recording are the lock's arithmetic, apart from the checks
the other deciders share in `controller.fast.hot`. Two passes, as the reference's
`_contributions` then `evolve`: the lock is refused (None, the reference decides) only while
pricing, so nothing is recorded for a lock the reference has to word. `price_lock` fills the
containers the decider allocated rather than handing back a new tuple of them: compiled, each
helper is one C call and adds no allocation to the lock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from controller.fast.contribution import BUILD
from controller.fast.meter_record import Meter
from controller.fast.records import Round, SettledWager
from controller.model.events import Event
from controller.model.table_events import WagersLocked

if TYPE_CHECKING:
    from controller.fast.session import Session

#: A wager priced for the lock: the wager, its kind, cents, meter id and record, primary,
#: reserve and overflow sub-units, and the meter's sequence number for its contribution.
Priced = tuple[SettledWager, str, int, str, Meter, int, int, int, int]


def price_lock(
    s: Session,
    links: Mapping[str, str],
    current: Round,
    meters: dict[str, list[Any]],
    priced: list[Priced],
) -> bool:
    """Each linked wager of ``current`` priced into ``priced`` as `_contributions` and
    `decide_meter` price them: what would take a meter above its ceiling is carried in its
    overflow (`controller.ceiling.split_at_ceiling`, NY 5320.8), each wager against the meter
    as the ones before it left it. ``meters`` gets, by meter id, its rates, record, amount as
    the lock's earlier contributions leave it and its next sequence number: each meter is
    looked up once per lock. False when a meter is not one this path prices (unknown, not hot,
    retired): the reference decides the lock."""
    for wager in current.settled_wagers():  # read when accepted, their cents kept for settling
        kind = wager.wager
        meter_id = links.get(kind)
        if meter_id is None:
            continue
        known = meters.get(meter_id)
        if known is None:
            rates = s.meter_def(meter_id)
            meter = s.meter(meter_id)
            if rates is None or meter is None or not rates.hot or meter.retired:
                return False
            known = meters[meter_id] = [rates, meter, meter.amount_sub, meter.seq]
        rates = known[0]
        seq = known[3] = known[3] + 1
        cents = wager.amount_cents
        # `contribution_subunits` written out (an interpreted call from here, twice a wager):
        # cents x ppm is exact in sub-units (649a.12(e)(3))
        primary = cents * rates.primary_ppm
        overflow = 0
        if rates.ceiling is not None:
            amount = known[2]
            overflow = primary - max(0, min(primary, rates.ceiling - amount))
            known[2] = amount + primary - overflow
        reserve = cents * rates.reserve_ppm
        priced.append((wager, kind, cents, meter_id, known[1], primary, reserve, overflow, seq))
    return True


def record_lock(e: WagersLocked, current: Round, priced: list[Priced]) -> tuple[Event, ...]:
    """The lock ``e`` and one `ContributionRecorded` a priced wager (built by `BUILD`), each
    applied as `apply_contribution` applies it: on the meter (as `Meter.contribute` of the
    event: no part of a lock's contribution is diverted), and on the round (this one), which
    remembers it. ``e``'s fields are read once for all of them."""
    out: list[Event] = [e]
    table_id, round_id, occurred_at = e.table_id, e.round_id, e.occurred_at
    contributions = current.contributions
    contribution = BUILD[0]
    for wager, kind, cents, meter_id, record, primary, reserve, overflow, seq in priced:
        out.append(
            contribution(
                meter_id,
                table_id,
                round_id,
                wager.seat,
                kind,
                wager.on,
                cents,
                primary,
                reserve,
                seq,
                occurred_at,
                overflow,
            )
        )
        record.contributed(table_id, round_id, primary, reserve, overflow, 0, seq)
        contributions.append((meter_id, primary, reserve))
    return tuple(out)
