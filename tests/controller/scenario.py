"""Given / When / Then for rule tests, so one rule reads as one statement::

    given(PA).events(opened("tcp-1", "r1"), wager(1, "progressive", "1.00"), locked()).when(
        settled(dealer="2c 7d 9h", seats={1: "As Ks Qs"})
    ).then(pays(hit(1, "1000.14")), meter_is("tcp-progressive", "1000.00"))

Builders leave the bookkeeping blank (table, round, ``seq``, ``event_id``, ``occurred_at``,
``command_id``); the scenario fills each blank from context: the table and round of the last
`opened`, the table's next ``seq``, a fresh id and a later timestamp. `at` sets any of them
explicitly (a second table, a repeated ``seq``, a duplicate ``event_id``) and the scenario keeps
what is set. ``given(...).events(...)`` refuses a rejected event, so a test's premise cannot fail
silently; ``when`` records whatever happens, for ``then`` to judge.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from controller.commands import ActivateConfig, CorrectMeter, OperatorCommand, PayHit, ValidateHit
from controller.events import (
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    ProgressiveHit,
)
from controller.floor import decide, evolve
from controller.money import SUBUNITS_PER_CENT, parse_cents
from controller.state import FloorState, HitStatus, MeterState
from controller.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)

PA = (Path(__file__).resolve().parents[2] / "examples" / "pa-three-card-poker.toml").read_text()
"""The example floor: tcp-1..6 at $1 on (e) A, (h), (i), (j); tcp-7, tcp-8 at $5 on (e) A."""

BLANK = ""
BLANK_SEQ = -1
Command = TableEvent | OperatorCommand
Cards = str | Sequence[str]
E = TypeVar("E", bound=TableEvent)


def cards(text: Cards) -> tuple[str, ...]:
    """ "As Ks Qs" or ["As", "Ks", "Qs"] as a tuple of card texts."""
    return tuple(text.split()) if isinstance(text, str) else tuple(text)


def dollars(text: str) -> int:
    """ "10000.63" as cents (a test's hand-worked amount)."""
    return parse_cents(text)


def sub(text: str) -> int:
    """ "10000.63" as meter sub-units."""
    return parse_cents(text) * SUBUNITS_PER_CENT


# --- table event builders ------------------------------------------------------------------------


def opened(table: str, round_id: str, game: str = "three_card_poker") -> RoundOpened:
    """A round opens; later builders default to this table and round."""
    return RoundOpened(
        event_id=BLANK,
        table_id=table,
        round_id=round_id,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        game=game,
    )


def wager(seat: int, kind: str, amount: str, on: str = "own") -> WagerPlaced:
    """A wager of ``amount`` dollars ("1.00") by ``seat`` on its own hand, "dealer" or "seat:N"."""
    return WagerPlaced(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        seat=seat,
        wager=kind,
        amount_cents=parse_cents(amount),
        on=on,
    )


def locked() -> WagersLocked:
    """No more wagers: contributions are recognised."""
    return WagersLocked(
        event_id=BLANK, table_id=BLANK, round_id=BLANK, seq=BLANK_SEQ, occurred_at=BLANK
    )


def decision(seat: int, action: str, amount: str | None = None) -> DecisionMade:
    """Any decision; `fold` and `play` are the usual ones."""
    return DecisionMade(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        seat=seat,
        action=action,
        amount_cents=None if amount is None else parse_cents(amount),
    )


def fold(seat: int) -> DecisionMade:
    """The player folds (649a.11(b))."""
    return decision(seat, "fold")


def play(seat: int, amount: str) -> DecisionMade:
    """The player makes a Play Wager equal to the Ante (649a.11(b))."""
    return decision(seat, "play", amount)


def settled(
    *,
    dealer: Cards,
    seats: Mapping[int, Cards],
    community: Cards = (),
    random_seat: str | None = None,
    magic_card: str | None = None,
) -> RoundSettled:
    """The cards at settlement; seats in seat order."""
    return RoundSettled(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        dealer=cards(dealer),
        community=cards(community),
        seats=tuple(sorted((seat, cards(hand)) for seat, hand in seats.items())),
        random_seat=random_seat,
        magic_card=magic_card,
    )


def voided(reason: str = "misdeal") -> RoundVoided:
    """The round is void."""
    return RoundVoided(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        reason=reason,
    )


def locked_round(table: str, round_id: str, *wagers: WagerPlaced) -> tuple[TableEvent, ...]:
    """A round opened at ``table``, these wagers placed, wagers locked."""
    return (opened(table, round_id), *wagers, locked())


def with_policy(config_text: str, key: str, value: str) -> str:
    """The configuration with one ``[policy]`` key set (envy_holders, dealer_hand_turn)."""
    lines = [
        f'{key} = "{value}"' if line.startswith(f"{key} =") else line
        for line in config_text.splitlines()
    ]
    assert lines != config_text.splitlines(), f"no policy key {key!r} in the configuration"
    return "\n".join(lines) + "\n"


def at(
    event: E,
    *,
    table: str | None = None,
    round_id: str | None = None,
    seq: int | None = None,
    event_id: str | None = None,
) -> E:
    """``event`` with explicit bookkeeping; the scenario keeps what is set here."""
    return replace(
        event,
        table_id=event.table_id if table is None else table,
        round_id=event.round_id if round_id is None else round_id,
        seq=event.seq if seq is None else seq,
        event_id=event.event_id if event_id is None else event_id,
    )


# --- operator command builders -------------------------------------------------------------------


def activate(text: str, source: str = "floor.toml", by: str = "manager-1") -> ActivateConfig:
    """Bring a floor configuration into force."""
    return ActivateConfig(command_id=BLANK, source=source, text=text, by=by, occurred_at=BLANK)


def validate(hit_id: str, by: str = "floor-1") -> ValidateHit:
    """A floorperson validates a hit (649a.11(c)(5)(iii))."""
    return ValidateHit(command_id=BLANK, hit_id=hit_id, by=by, occurred_at=BLANK)


def pay(hit_id: str, by: str = "cashier-1") -> PayHit:
    """A validated hit is paid (649a.11(c)(5)(iv))."""
    return PayHit(command_id=BLANK, hit_id=hit_id, by=by, occurred_at=BLANK)


def correct(
    meter_id: str,
    amount_delta_sub: int = 0,
    reserve_delta_sub: int = 0,
    *,
    by: str = "manager-1",
    reason: str = "audit adjustment",
) -> CorrectMeter:
    """An authorised correction of a meter, in sub-units."""
    return CorrectMeter(
        command_id=BLANK,
        meter_id=meter_id,
        amount_delta_sub=amount_delta_sub,
        reserve_delta_sub=reserve_delta_sub,
        by=by,
        reason=reason,
        occurred_at=BLANK,
    )


# --- the scenario --------------------------------------------------------------------------------


@dataclass(slots=True)
class Scenario:
    """A floor built up event by event; the context fills the builders' blanks."""

    state: FloorState = field(default_factory=FloorState)
    log: list[Event] = field(default_factory=list)
    table: str = BLANK
    rounds: dict[str, str] = field(default_factory=dict)
    seqs: dict[str, int] = field(default_factory=dict)
    counter: Iterator[int] = field(default_factory=itertools.count)

    def events(self, *commands: Command) -> Scenario:
        """Apply the premise; every command must be accepted."""
        for command in commands:
            for event in self._apply(command):
                if isinstance(event, EventRejected):
                    msg = f"premise {type(command).__name__} was rejected: {event.reason}"
                    raise AssertionError(msg)
        return self

    def when(self, *commands: Command) -> Outcome:
        """Apply the commands under test, whatever they produce."""
        before = self.state
        emitted: list[Event] = []
        for command in commands:
            emitted.extend(self._apply(command))
        return Outcome(before=before, state=self.state, emitted=tuple(emitted))

    def meter(self, meter_id: str) -> MeterState:
        """A meter as it stands now."""
        return self.state.meters[meter_id]

    def fill(self, command: Command) -> Command:
        """The command with its blanks filled from context (also advances the context)."""
        stamp = next(self.counter)
        when = f"2026-01-01T{stamp // 3600 % 24:02d}:{stamp // 60 % 60:02d}:{stamp % 60:02d}.000Z"
        if isinstance(command, ValidateHit | PayHit):
            command = replace(command, hit_id=resolve_hit(self.state, command.hit_id))
        if isinstance(command, ActivateConfig | CorrectMeter | ValidateHit | PayHit):
            return replace(
                command,
                command_id=command.command_id or f"cmd-{stamp}",
                occurred_at=command.occurred_at or when,
            )
        return self._fill_table_event(command, stamp, when)

    def _fill_table_event(self, event: TableEvent, stamp: int, when: str) -> TableEvent:
        table = event.table_id or self.table
        if isinstance(event, RoundOpened):
            self.table = table
            self.rounds[table] = event.round_id
        round_id = event.round_id or self.rounds.get(table, BLANK)
        seq = event.seq if event.seq != BLANK_SEQ else self.seqs.get(table, 0) + 1
        self.seqs[table] = max(seq, self.seqs.get(table, 0))
        return replace(
            event,
            table_id=table,
            round_id=round_id,
            seq=seq,
            event_id=event.event_id or f"{table}/{round_id}/e{stamp}",
            occurred_at=event.occurred_at or when,
        )

    def _apply(self, command: Command) -> tuple[Event, ...]:
        events = decide(self.state, self.fill(command))
        for event in events:
            self.state = evolve(self.state, event)
        self.log.extend(events)
        return events


def resolve_hit(state: FloorState, short_id: str) -> str:
    """The newest hit named "table/round/wager/seatN" (or ".../dealer").

    A hit id also carries the settlement's seq ("tcp-1/r1/9/progressive/seat1") so it stays
    unique if a device reuses a round id; tests name hits without it. A full id is kept as is.
    """
    if short_id in state.hits or short_id.count("/") != 3:
        return short_id
    table, round_id, wager, label = short_id.split("/")
    matches = [
        hit_id
        for hit_id in state.hits
        if (parts := hit_id.split("/"))[:2] == [table, round_id] and parts[3:] == [wager, label]
    ]
    return max(matches, key=lambda h: int(h.split("/")[2]), default=short_id)


def given(config_text: str = PA, source: str = "floor.toml") -> Scenario:
    """A floor with ``config_text`` in force and its meters seeded."""
    return Scenario().events(activate(config_text, source))


# --- the outcome and its checks ------------------------------------------------------------------


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
            assert meter.explained_sub() == meter.amount_sub + meter.reserve_sub, meter
            assert meter.amount_sub >= 0, meter
            assert meter.reserve_sub >= 0, meter

    return check
