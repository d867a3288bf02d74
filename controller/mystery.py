"""Must-hit-by ("mystery") levels, provably fair. Pure: the draw and the seal come from the edge.

A mystery level has no paytable. At each reset the edge draws a trigger uniformly in whole cents
in [reset, must_hit_by) from the operating system's secure source, with a random salt, seals both
under a key kept apart from the log, and sends `ArmMystery`. The core records `MysteryArmed` with
only the commitment (SHA-256 of ``"<trigger>:<salt>"``) and the seal, so no log reader, API or
metric can learn the trigger before the hit (GLI-12's mystery progressives: the hit point is
chosen at random at the reset and is not known to anyone; N.J.A.C. 13:69E-1.39B).

The wager whose contribution takes the meter to or past the trigger wins it at that moment
(contributions are settled in the table stage's order, one after another). It is paid exactly
the trigger, so every hit is in [reset, must_hit_by) and the hit amounts are exactly as uniform as
the draw; what the winning contribution put above the trigger stays on the meter for the next
cycle, with the reserve and any overflow (the restart of every 100% hit). The hit is a
`ProgressiveHit` (``share = "mystery"``) with the life of any hit (validated, then paid), and
`MysteryRevealed` publishes the trigger and salt beside it, so anyone can check with `audit`
that the trigger was fixed at the arming and was in range.

The trigger itself lives only in the process's state (`MeterState.mystery_trigger_cents`), put
there by `with_trigger` after the edge unseals it; a replay reads the hits from the log, and a
restarted engine unseals the armed meters again with its key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from controller.config.floor import MeterDef
from controller.model.commands import ArmMystery
from controller.model.errors import RuleViolation
from controller.model.events import (
    AwardShare,
    ContributionRecorded,
    Event,
    MysteryArmed,
    MysteryRevealed,
    ProgressiveHit,
)
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.state import FloorState, MeterState, fast_replace

MYSTERY_SHARE = "mystery"
"""A mystery hit's ``share``: it pays the trigger, which is the whole meter at that moment."""
_SALT = re.compile(r"[0-9a-f]{32,128}")


def commitment_of(trigger_cents: int, salt: str) -> str:
    """The published commitment: SHA-256 of ``"<trigger in cents>:<salt>"``, in hex."""
    return hashlib.sha256(f"{trigger_cents}:{salt}".encode()).hexdigest()


def arm(state: FloorState, command: ArmMystery) -> MysteryArmed:
    """Record a drawn trigger's commitment, or RuleViolation. A refusal's reason never names the
    trigger: refusals are logged, and the trigger must stay unknown."""
    definition = _definition(state, command.meter_id)
    meter = state.meters.get(command.meter_id)
    if meter is None or meter.retired:
        msg = f"meter {command.meter_id!r} is retired or unknown: it cannot be armed"
        raise RuleViolation(msg)
    if meter.mystery_commitment:
        msg = f"mystery level {command.meter_id!r} is armed already; it is armed again at its hit"
        raise RuleViolation(msg)
    low, high = definition.progressive.reset_cents, definition.progressive.must_hit_by_cents
    if not low <= command.trigger_cents < high:
        msg = f"the drawn trigger for {command.meter_id!r} is outside [reset, must_hit_by)"
        raise RuleViolation(msg)
    if _SALT.fullmatch(command.salt) is None or not command.sealed:
        msg = "an arming needs a salt of 32 to 128 lowercase hex digits and the sealed trigger"
        raise RuleViolation(msg)
    return MysteryArmed(
        meter_id=command.meter_id,
        commitment=commitment_of(command.trigger_cents, command.salt),
        sealed=command.sealed,
        reset_cents=low,
        must_hit_by_cents=high,
        occurred_at=command.occurred_at,
    )


def _definition(state: FloorState, meter_id: str) -> MeterDef:
    definition = None if state.config is None else state.config.meters.get(meter_id)
    if definition is None or not definition.mystery:
        msg = f"meter {meter_id!r} is not a mystery level of the active configuration"
        raise RuleViolation(msg)
    return definition


def unarmed(state: FloorState) -> tuple[str, ...]:
    """The mystery levels waiting for a trigger (at activation, after each hit): the edge draws."""
    if state.config is None:
        return ()
    return tuple(
        meter_id
        for meter_id, definition in state.config.meters.items()
        if definition.mystery
        and (meter := state.meters.get(meter_id)) is not None
        and not meter.retired
        and not meter.mystery_commitment
    )


def sealed_unknown(state: FloorState) -> tuple[tuple[str, str, str], ...]:
    """(meter, commitment, seal) of each armed level whose trigger this state does not know yet
    (after a replay or a restart): the edge unseals them and calls `with_trigger`."""
    return tuple(
        (meter.meter_id, meter.mystery_commitment, meter.mystery_sealed)
        for meter in state.meters.values()
        if meter.mystery_commitment and meter.mystery_trigger_cents < 0
    )


def with_trigger(state: FloorState, meter_id: str, trigger_cents: int, salt: str) -> FloorState:
    """The state knowing an armed level's trigger, checked against its commitment."""
    meter = state.meters.get(meter_id)
    if meter is None or not meter.mystery_commitment:
        msg = f"meter {meter_id!r} is not an armed mystery level"
        raise RuleViolation(msg)
    if commitment_of(trigger_cents, salt) != meter.mystery_commitment:
        msg = f"the unsealed trigger of {meter_id!r} does not match its commitment"
        raise RuleViolation(msg)
    known = fast_replace(meter, mystery_trigger_cents=trigger_cents, mystery_salt=salt)
    return fast_replace(state, meters=state.meters.set(meter_id, known))


def evolve_mystery(meter: MeterState, event: MysteryArmed | MysteryRevealed) -> MeterState:
    """Arm (the trigger stays unknown until `with_trigger`) or disarm at the reveal."""
    if isinstance(event, MysteryArmed):
        return fast_replace(
            meter,
            mystery_commitment=event.commitment,
            mystery_sealed=event.sealed,
            mystery_trigger_cents=-1,
            mystery_salt="",
        )
    return fast_replace(
        meter, mystery_commitment="", mystery_sealed="", mystery_trigger_cents=-1, mystery_salt=""
    )


def hit_at_trigger(
    meter: MeterState, definition: MeterDef, event: ContributionRecorded
) -> tuple[ProgressiveHit, MysteryRevealed] | None:
    """The hit, if ``event`` (already applied to ``meter``) took it to or past its trigger.

    An unarmed level (between a hit and the edge's next draw) cannot hit; an armed one whose
    trigger is still sealed refuses to decide rather than guess."""
    if not definition.mystery or not meter.mystery_commitment:
        return None
    trigger = meter.mystery_trigger_cents
    if trigger < 0:
        msg = (
            f"mystery level {meter.meter_id!r} is armed but its trigger is sealed in this process; "
            "the engine must unseal it (its key) before wagers lock"
        )
        raise RuleViolation(msg)
    if meter.amount_sub < trigger * SUBUNITS_PER_CENT:
        return None
    hit = _trigger_hit(meter, definition, event, trigger)
    return hit, _revealed(meter, definition, hit, trigger)


def _trigger_hit(
    meter: MeterState, definition: MeterDef, event: ContributionRecorded, trigger: int
) -> ProgressiveHit:
    """The trigger amount to the contributing seat, and a reset like a 100% hit's: reseed plus
    the reserve and the overflow."""
    reseed = definition.reseed_subunits
    after = meter.amount_sub - trigger * SUBUNITS_PER_CENT + reseed
    after += meter.reserve_sub + meter.overflow_sub
    return ProgressiveHit(
        hit_id=f"{event.table_id}/{event.round_id}/mystery/{meter.meter_id}/{meter.seq + 1}",
        meter_id=meter.meter_id,
        table_id=event.table_id,
        round_id=event.round_id,
        wager=event.wager,
        on=event.on,
        hand="mystery",
        cards=(),
        share=MYSTERY_SHARE,
        amount_cents=trigger,
        winners=(AwardShare(seat=event.seat, amount_cents=trigger),),
        meter_before_sub=meter.amount_sub,
        meter_after_sub=after,
        reserve_before_sub=meter.reserve_sub,
        reserve_after_sub=0,
        reseed_sub=reseed,
        meter_seq=meter.seq + 1,
        occurred_at=event.occurred_at,
        reset=True,
        overflow_before_sub=meter.overflow_sub,
        overflow_after_sub=0,
    )


def _revealed(
    meter: MeterState, definition: MeterDef, hit: ProgressiveHit, trigger: int
) -> MysteryRevealed:
    """The sealed trigger opened at the hit, with what anyone needs to check it against the
    commitment made when the level was armed."""
    return MysteryRevealed(
        meter_id=meter.meter_id,
        hit_id=hit.hit_id,
        commitment=meter.mystery_commitment,
        trigger_cents=trigger,
        salt=meter.mystery_salt,
        reset_cents=definition.progressive.reset_cents,
        must_hit_by_cents=definition.progressive.must_hit_by_cents,
        amount_cents=trigger,
        occurred_at=hit.occurred_at,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RevealCheck:
    """One reveal checked against its arming and its hit; ``problems`` empty when it holds."""

    meter_id: str
    hit_id: str
    trigger_cents: int
    reset_cents: int
    must_hit_by_cents: int
    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MysteryAudit:
    """Every reveal checked, and the armings not yet revealed (their triggers stay secret)."""

    reveals: tuple[RevealCheck, ...]
    pending: tuple[tuple[str, str], ...]
    """(meter_id, commitment) armed and not (yet) hit."""

    @property
    def ok(self) -> bool:
        return all(not r.problems for r in self.reveals)


def check_reveal(
    armed: MysteryArmed | None, revealed: MysteryRevealed, hit: ProgressiveHit | None
) -> tuple[str, ...]:
    """Why a reveal does not prove a fair hit: no earlier arming with its commitment, a trigger
    and salt that do not hash to it, a trigger outside the range fixed at the arming, or a hit
    that did not pay exactly the trigger from a meter that had reached it."""
    problems: list[str] = []
    if armed is None or armed.meter_id != revealed.meter_id:
        problems.append("no earlier arming of this meter published this commitment")
    if commitment_of(revealed.trigger_cents, revealed.salt) != revealed.commitment:
        problems.append("SHA-256 of the revealed trigger and salt is not the commitment")
    low, high = (armed.reset_cents, armed.must_hit_by_cents) if armed else (0, 0)
    if not low <= revealed.trigger_cents < high:
        problems.append(f"trigger {revealed.trigger_cents} outside [{low}, {high}) cents")
    if hit is None:
        problems.append(f"no hit {revealed.hit_id!r} precedes the reveal")
    elif hit.amount_cents != revealed.trigger_cents or revealed.amount_cents != hit.amount_cents:
        problems.append(f"the hit paid {hit.amount_cents} cents, not the trigger")
    elif hit.meter_before_sub < revealed.trigger_cents * SUBUNITS_PER_CENT:
        problems.append("the hit came before the meter reached the trigger")
    return tuple(problems)


def audit(events: Iterable[Event]) -> MysteryAudit:
    """Check every reveal in a log against its commitment and range (`jackpot mystery-audit`)."""
    armings: dict[str, MysteryArmed] = {}
    hits: dict[str, ProgressiveHit] = {}
    checks: list[RevealCheck] = []
    for event in events:
        if isinstance(event, MysteryArmed):
            armings[event.commitment] = event
        elif isinstance(event, ProgressiveHit) and event.share == MYSTERY_SHARE:
            hits[event.hit_id] = event
        elif isinstance(event, MysteryRevealed):
            armed = armings.pop(event.commitment, None)
            checks.append(
                RevealCheck(
                    meter_id=event.meter_id,
                    hit_id=event.hit_id,
                    trigger_cents=event.trigger_cents,
                    reset_cents=event.reset_cents,
                    must_hit_by_cents=event.must_hit_by_cents,
                    problems=check_reveal(armed, event, hits.get(event.hit_id)),
                )
            )
    pending = tuple((a.meter_id, a.commitment) for a in armings.values())
    return MysteryAudit(reveals=tuple(checks), pending=pending)
