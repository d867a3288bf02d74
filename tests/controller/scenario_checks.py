"""The outcome of a scenario's ``when`` and the checks ``then`` runs on it: awards paid, meters,
acceptance and rejection with their reasons, hit status, conservation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.model.events import (
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    ProgressiveHit,
)
from controller.model.state import FloorState, HitStatus, MeterState
from tests.controller.scenario_builders import dollars, resolve_hit, sub


@dataclass(frozen=True, slots=True)
class Paid:
    """One award as a test expects it; None fields are not compared."""

    kind: str
    seat: int
    cents: int
    hand: str | None = None
    meter: str | None = None
    holder: int | None = None
    on: str | None = None


def hit(
    seat: int, amount: str, hand: str | None = None, meter: str | None = None, on: str | None = None
) -> Paid:
    """A player's part of a percentage-of-meter award."""
    return Paid("hit", seat, dollars(amount), hand=hand, meter=meter, on=on)


def fixed(seat: int, amount: str, hand: str | None = None, on: str | None = None) -> Paid:
    """A fixed ("for 1") award, Magic Card or Lucky Bonus."""
    return Paid("fixed", seat, dollars(amount), hand=hand, on=on)


def envy(seat: int, amount: str, holder: int | None = None, hand: str | None = None) -> Paid:
    """An Envy Bonus paid to ``seat`` for ``holder``'s hand."""
    return Paid("envy", seat, dollars(amount), hand=hand, holder=holder)


def _awards(events: Sequence[Event]) -> list[Paid]:
    out: list[Paid] = []
    for event in events:
        match event:
            case ProgressiveHit():
                out.extend(
                    Paid("hit", w.seat, w.amount_cents, event.hand, event.meter_id, None, event.on)
                    for w in event.winners
                )
            case FixedAwarded():
                out.append(
                    Paid(
                        "fixed",
                        event.seat,
                        event.amount_cents,
                        event.hand,
                        event.meter_id,
                        None,
                        event.on,
                    )
                )
            case EnvyAwarded():
                out.append(
                    Paid(
                        "envy",
                        event.seat,
                        event.amount_cents,
                        event.hand,
                        event.meter_id,
                        event.holder_seat,
                        "own",
                    )
                )
            case _:
                pass
    return out


def _matches(expected: Paid, actual: Paid) -> bool:
    return all(
        getattr(expected, name) is None or getattr(expected, name) == getattr(actual, name)
        for name in ("kind", "seat", "cents", "hand", "meter", "holder", "on")
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    """What ``when`` produced: the state before and after, and the events emitted."""

    before: FloorState
    state: FloorState
    emitted: tuple[Event, ...]

    def then(self, *checks: Check) -> Outcome:
        """Run every check; at least one is required."""
        assert checks, "then() needs at least one check"
        for check in checks:
            check(self)
        return self

    def awards(self) -> list[Paid]:
        """Every award emitted, in settlement order (a split jackpot gives one per player)."""
        return _awards(self.emitted)

    def hits(self) -> list[ProgressiveHit]:
        """The percentage-of-meter hits emitted."""
        return [e for e in self.emitted if isinstance(e, ProgressiveHit)]

    def rejections(self) -> list[EventRejected]:
        """The rejections emitted."""
        return [e for e in self.emitted if isinstance(e, EventRejected)]

    def meter(self, meter_id: str) -> MeterState:
        """A meter after ``when``."""
        return self.state.meters[meter_id]


Check = Callable[[Outcome], None]


def pays(*expected: Paid) -> Check:
    """Exactly these awards, in this order, and nothing rejected."""

    def check(outcome: Outcome) -> None:
        refused = [r.reason for r in outcome.rejections()]
        assert not refused, f"expected awards, but input was rejected: {refused}"
        actual = outcome.awards()
        ok = len(actual) == len(expected) and all(
            _matches(e, a) for e, a in zip(expected, actual, strict=True)
        )
        assert ok, f"expected awards {list(expected)}\n  actual {actual}"

    return check


def pays_nothing() -> Check:
    """No award of any kind."""
    return pays()


def meter_is(meter_id: str, amount: str, reserve: str | None = None) -> Check:
    """The meter (and reserve) hold exactly these dollars, to the sub-unit."""
    reserve_sub = None if reserve is None else _sub_or_zero(reserve)
    return meter_sub_is(meter_id, _sub_or_zero(amount), reserve_sub)


def _sub_or_zero(text: str) -> int:
    return 0 if text in ("0", "0.00") else sub(text)


def meter_sub_is(meter_id: str, amount_sub: int, reserve_sub: int | None = None) -> Check:
    """The meter (and reserve) hold exactly these sub-units."""

    def check(outcome: Outcome) -> None:
        meter = outcome.meter(meter_id)
        assert meter.amount_sub == amount_sub, f"{meter_id}: {meter.amount_sub} != {amount_sub}"
        if reserve_sub is not None:
            assert meter.reserve_sub == reserve_sub, (
                f"{meter_id} reserve: {meter.reserve_sub} != {reserve_sub}"
            )

    return check


def accepted() -> Check:
    """Nothing was rejected."""

    def check(outcome: Outcome) -> None:
        assert not outcome.rejections(), [r.reason for r in outcome.rejections()]

    return check


def rejected(*fragments: str) -> Check:
    """One rejection whose reason contains every fragment, and NO change of state."""

    def check(outcome: Outcome) -> None:
        assert len(outcome.emitted) == 1, outcome.emitted
        event = outcome.emitted[0]
        assert isinstance(event, EventRejected), event
        for fragment in fragments:
            assert fragment.lower() in event.reason.lower(), (fragment, event.reason)
        assert outcome.state == outcome.before, "a rejected command changed the state"

    return check


def hit_status(hit_id: str, status: HitStatus) -> Check:
    """The hit is at this point of its life."""

    def check(outcome: Outcome) -> None:
        assert outcome.state.hits[resolve_hit(outcome.state, hit_id)].status == status

    return check


def conserved() -> Check:
    """Every meter is explained by its events to the sub-unit, and none is negative."""

    def check(outcome: Outcome) -> None:
        for meter in outcome.state.meters.values():
            assert meter.explained_sub() == meter.held_sub(), meter
            assert meter.amount_sub >= 0, meter
            assert meter.reserve_sub >= 0, meter

    return check
