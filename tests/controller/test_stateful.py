"""Stateful property tests (issue 7): random valid and invalid table-event and operator sequences
through the floor decider, compared after every step with `tests.reference_model`.

The machine plays three tables of ``examples/pa-three-card-poker.toml``: tcp-1 and tcp-2 share the
four $1 meters, tcp-7 has the $5 Progressive meter of its own. It knows the table protocol (phases,
``seq``, event ids) well enough to say in advance whether the controller must accept or refuse each
command, so every step checks the verdict as well as the meters. Settlements deal from a shuffled
deck, often rigged so that AKQ of spades, royal flushes, straight flushes and 5 of 6 royals (on
players' and on the dealer's hands) actually happen, one or two in a round.

Invariants after every step: every meter and reserve equals the reference to the sub-unit; each
meter is conserved (seeded + contributed - paid + corrected == amount + reserve); none is
negative; a refused command produced exactly one `EventRejected` and left the state unchanged; the
log replayed from scratch is the live state. At teardown the log also replays after a round trip
through `controller.codec` and JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from controller.codec import event_from_dict, event_to_dict
from controller.commands import ActivateConfig, CorrectMeter, PayHit, ValidateHit
from controller.events import Event, EventRejected, FixedAwarded, ProgressiveHit
from controller.floor import decide, evolve
from controller.state import FloorState
from controller.table_events import TableEvent, from_contract
from tests.reference_model import (
    RANKS,
    Deal,
    ReferenceFloor,
    Wager,
    from_subunits,
    to_subunits,
)

PA = (Path(__file__).resolve().parents[2] / "examples" / "pa-three-card-poker.toml").read_text()
TABLES = ("tcp-1", "tcp-2", "tcp-7")
SHARED = ("tcp-1", "tcp-2")  # linked to the same four meters
UNITS = {"tcp-1": "1.00", "tcp-2": "1.00", "tcp-7": "5.00"}
SEATS = range(1, 8)
BASE_WAGERS = ("ante", "pair_plus", "six_card_bonus")
SURVIVES_FOLD = (
    "six_card_bonus",
    "five_card_hand_bonus",
    "five_of_six_progressive",
)  # 649a.11(b)(3)
BASE_AMOUNTS = ("1.00", "5.00", "10.00", "25.00")
DECK = tuple(rank + suit for rank in RANKS for suit in "cdhs")
SIZES = {"dealer": 3, "community": 2}  # and 3 per seat
Phase = str  # "none", "open", "locked", "settled", "voided"
Forced = dict[str, list[str]]  # position ("dealer", "community", "3") -> cards forced there


@dataclass(slots=True)
class Track:
    """What the machine knows of one table: its stream position and the round in play."""

    table_id: str
    offered: tuple[str, ...]  # the progressive wagers linked to a meter here
    last_seq: int = 0
    rounds: int = 0
    round_id: str = ""
    phase: Phase = "none"
    wagers: list[tuple[int, str, str, int]] = field(default_factory=list)  # seat, kind, on, cents
    decided: dict[int, str] = field(default_factory=dict)
    round_event_ids: list[str] = field(default_factory=list)
    accepted: list[TableEvent] = field(default_factory=list)

    def ante(self, seat: int) -> int | None:
        return next((c for s, k, _, c in self.wagers if (s, k) == (seat, "ante")), None)

    def seats(self) -> list[int]:
        return sorted({seat for seat, *_ in self.wagers})

    def has(self, seat: int, kind: str, on: str) -> bool:
        return any((s, k, o) == (seat, kind, on) for s, k, o, _ in self.wagers)

    def undecided(self) -> list[int]:
        return [s for s in self.seats() if self.ante(s) is not None and s not in self.decided]


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def cents(text: str) -> int:
    whole, part = text.split(".")
    return int(whole) * 100 + int(part)


class FloorMachine(RuleBasedStateMachine):
    """Three tables and the operators, against the reference model."""

    def __init__(self) -> None:
        super().__init__()
        self.state = FloorState()
        self.log: list[Event] = []
        self.ref = ReferenceFloor.from_toml(PA)
        self.tracks = {t: Track(table_id=t, offered=tuple(self.ref.links[t])) for t in TABLES}
        self.hits: dict[str, str] = {}
        self.clock = 0

    # --- plumbing ---------------------------------------------------------------------------------

    def _now(self) -> str:
        self.clock += 1
        day, rest = divmod(self.clock, 86_400)
        return f"2026-01-{day + 1:02d}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}Z"

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}-{self.clock + 1}"

    def _event(self, track: Track, kind: str, **body: object) -> TableEvent:
        """A contract dict turned into a table event; blanks filled from the track."""
        raw: dict[str, object] = {
            "event_id": self._next_id(track.table_id),
            "type": kind,
            "table_id": track.table_id,
            "round_id": track.round_id or "r0",
            "seq": track.last_seq + 1 + self.clock % 3,  # strictly increasing, not contiguous
        }
        raw.update(body)
        raw["occurred_at"] = self._now()
        return from_contract(raw)

    def _submit(
        self,
        command: TableEvent | ActivateConfig | CorrectMeter | ValidateHit | PayHit,
        ok: bool,
        why: str,
    ) -> tuple[Event, ...]:
        before = self.state
        events = decide(before, command)
        after = reduce(evolve, events, before)
        rejected = [e for e in events if isinstance(e, EventRejected)]
        if ok:
            assert not rejected, f"{why}: refused {command!r}: {[r.reason for r in rejected]}"
        else:
            assert len(events) == 1, f"{why}: expected one rejection, got {events!r}"
            assert rejected, f"{why}: accepted {command!r}"
            assert after == before, f"{why}: a rejected command changed the state"
            event(f"rejected: {why}")
        self.state = after
        self.log.extend(events)
        if ok and not isinstance(command, ActivateConfig | CorrectMeter | ValidateHit | PayHit):
            track = self.tracks[command.table_id]
            track.last_seq = command.seq
            track.round_event_ids.append(command.event_id)
            track.accepted.append(command)
        return events

    def _pick(
        self,
        data: st.DataObject,
        phases: Sequence[Phase],
        where: Callable[[Track], bool] = lambda _: True,
    ) -> Track:
        eligible = [t for t in self.tracks.values() if t.phase in phases and where(t)]
        return data.draw(st.sampled_from(eligible), label="table")

    def _any(
        self, phases: Sequence[Phase], where: Callable[[Track], bool] = lambda _: True
    ) -> bool:
        return any(t.phase in phases and where(t) for t in self.tracks.values())

    # --- configuration ----------------------------------------------------------------------------

    @initialize()
    def activate(self) -> None:
        command = ActivateConfig(
            command_id="cmd-activate",
            source="pa.toml",
            text=PA,
            by="manager-1",
            occurred_at=self._now(),
        )
        self._submit(command, ok=True, why="activate")

    # --- rounds, step by step ---------------------------------------------------------------------

    @precondition(lambda self: self._any(OPENABLE))
    @rule(data=st.data())
    def open_round(self, data: st.DataObject) -> None:
        self._open(self._pick(data, OPENABLE))

    @precondition(lambda self: self._any(("open",)))
    @rule(data=st.data())
    def place_wagers(self, data: st.DataObject) -> None:
        self._place(data, self._pick(data, ("open",)), 6)

    @precondition(lambda self: self._any(("open",)))
    @rule(data=st.data())
    def lock(self, data: st.DataObject) -> None:
        self._lock(self._pick(data, ("open",)))

    @precondition(lambda self: self._any(("locked",), lambda t: bool(t.undecided())))
    @rule(data=st.data())
    def decide_seats(self, data: st.DataObject) -> None:
        track = self._pick(data, ("locked",), lambda t: bool(t.undecided()))
        seats = st.lists(st.sampled_from(track.undecided()), min_size=1, unique=True)
        self._decide(data, track, data.draw(seats))

    @precondition(lambda self: self._any(("locked",)))
    @rule(data=st.data(), deck=st.permutations(DECK))
    def settle(self, data: st.DataObject, deck: list[str]) -> None:
        self._settle(data, self._pick(data, ("locked",)), deck)

    @precondition(lambda self: self._any(("open", "locked")))
    @rule(data=st.data())
    def void(self, data: st.DataObject) -> None:
        self._void(self._pick(data, ("open", "locked")))

    @precondition(lambda self: self._any(OPENABLE))
    @rule(data=st.data(), deck=st.permutations(DECK))
    def play_round(self, data: st.DataObject, deck: list[str]) -> None:
        """A whole round in one step: open, wagers, lock, every decision, settle."""
        self._play_round(data, self._pick(data, OPENABLE), deck)

    @precondition(lambda self: all(self.tracks[t].phase in OPENABLE for t in SHARED))
    @rule(data=st.data(), deck=st.permutations(DECK), other_deck=st.permutations(DECK))
    def interleave_rounds(
        self, data: st.DataObject, deck: list[str], other_deck: list[str]
    ) -> None:
        """tcp-1 and tcp-2 share their meters: one locks a round, the other plays a whole
        (likely rigged) round, then the first is settled or voided, maybe after a correction."""
        first, second = (self.tracks[t] for t in data.draw(st.permutations(SHARED)))
        self._open(first)
        self._place(data, first, 8)
        self._lock(first)
        self._play_round(data, second, other_deck)
        if data.draw(st.booleans(), label="correct first"):
            self.correct_meter(data)
        if data.draw(st.booleans(), label="void"):
            self._void(first)
        else:
            self._decide(data, first, first.undecided())
            self._settle(data, first, deck)

    def _play_round(self, data: st.DataObject, track: Track, deck: Sequence[str]) -> None:
        self._open(track)
        self._place(data, track, 12)
        self._lock(track)
        self._decide(data, track, track.undecided())
        self._settle(data, track, deck)

    def _void(self, track: Track) -> None:
        voided = self._event(track, "round_voided", reason="misdeal: dealer exposed a card")
        self._submit(voided, ok=True, why="void")
        if track.phase == "locked" and self.ref.void(track.table_id):
            event("void of a round whose contributions were partly paid out or corrected away")
        track.phase = "voided"

    def _open(self, track: Track) -> None:
        track.rounds += 1
        round_id = f"{track.table_id}-r{track.rounds}"
        opened = self._event(track, "round_opened", round_id=round_id, game="three_card_poker")
        track.round_id, track.phase = round_id, "open"
        track.wagers, track.decided, track.round_event_ids = [], {}, []
        self._submit(opened, ok=True, why="open")

    def _place(self, data: st.DataObject, track: Track, most: int) -> None:
        """Valid wagers, progressive ones twice as likely; placing one twice must be refused."""
        kinds = st.sampled_from((*BASE_WAGERS, *track.offered, *track.offered))
        spots = st.tuples(st.sampled_from(SEATS), kinds, st.booleans())
        for seat, kind, on_dealer in data.draw(st.lists(spots, min_size=1, max_size=most)):
            on = "dealer" if on_dealer and kind == "five_card_hand_bonus" else "own"
            amount = (
                UNITS[track.table_id]
                if kind in track.offered
                else data.draw(st.sampled_from(BASE_AMOUNTS))
            )
            placed = self._event(track, "wager_placed", seat=seat, wager=kind, amount=amount, on=on)
            duplicate = track.has(seat, kind, on)
            self._submit(placed, ok=not duplicate, why="same wager twice")
            if not duplicate:
                track.wagers.append((seat, kind, on, cents(amount)))

    def _lock(self, track: Track) -> None:
        self._submit(self._event(track, "wagers_locked"), ok=True, why="lock")
        track.phase = "locked"
        self.ref.lock(track.table_id, [Wager(s, k, o) for s, k, o, _ in track.wagers])

    def _decide(self, data: st.DataObject, track: Track, seats: Sequence[int]) -> None:
        for seat in seats:
            action = data.draw(st.sampled_from(("play", "fold")))
            body: dict[str, object] = {"seat": seat, "action": action}
            if action == "play":
                body["amount"] = money(track.ante(seat) or 0)
            self._submit(self._event(track, "decision", **body), ok=True, why="decision")
            track.decided[seat] = action

    def _settle(self, data: st.DataObject, track: Track, deck: Sequence[str]) -> None:
        """Settle from the shuffled deck, maybe rigged; the hits must be the reference's."""
        seats = track.seats()
        if data.draw(st.booleans(), label="leave out folded hands"):
            # schema round_settled: "Hands of folded players may be left out" (649a.11(c)), when
            # none of their wagers survives the fold (649a.11(b)(3)).
            seats = [s for s in seats if not self._nothing_in_play(track, s)]
        deal = deal_cards(seats, deck, rig(data, seats))
        style = data.draw(st.integers(0, 3), label="spelling")
        settled = self._event(track, "round_settled", **settlement_body(deal, style))
        wagers = [Wager(s, k, o) for s, k, o, _ in track.wagers]
        folded = [s for s, a in track.decided.items() if a == "fold"]
        expected = self.ref.settle(track.table_id, wagers, folded, deal)
        events = self._submit(settled, ok=True, why="settle")
        track.phase = "settled"
        hits = [e for e in events if isinstance(e, ProgressiveHit)]
        # 649a.11(c)(8)(ii): a 500-for-1 Five Card Hand Bonus is verified like a hit, too.
        for award in events:
            if isinstance(award, FixedAwarded) and award.hit_id:
                assert award.hand == "four_of_a_kind", award
                assert award.hit_id not in self.hits, f"hit id {award.hit_id!r} used twice"
                self.hits[award.hit_id] = "pending_validation"
        actual = [
            (h.meter_id, h.wager, h.on, h.hand, tuple((w.seat, w.amount_cents) for w in h.winners))
            for h in hits
        ]
        assert actual == [(a.meter_id, a.kind, a.on, a.hand, a.shares) for a in expected], deal
        for hit in hits:
            assert hit.hit_id not in self.hits, f"hit id {hit.hit_id!r} used twice"
            self.hits[hit.hit_id] = "pending_validation"
            event(f"hit: {hit.wager} on {hit.on}, {hit.hand}")
        event(f"settlement with {min(len(hits), 2)} hits")

    @staticmethod
    def _nothing_in_play(track: Track, seat: int) -> bool:
        return track.decided.get(seat) == "fold" and all(
            kind not in SURVIVES_FOLD for s, kind, _, _ in track.wagers if s == seat
        )

    # --- refused table events ---------------------------------------------------------------------

    @rule(data=st.data())
    def invalid_table_event(self, data: st.DataObject) -> None:
        """A table event wrong for exactly one reason: it must be refused and change nothing."""
        tracks = self.tracks.values()
        names = [n for n, (applies, _) in INVALID.items() if any(map(applies, tracks))]
        name = data.draw(st.sampled_from(names), label="invalid")
        applies, make = INVALID[name]
        track = data.draw(st.sampled_from([t for t in tracks if applies(t)]), label="table")
        command = make(self, data, track)
        if command is not None:
            self._submit(command, ok=False, why=name)

    # --- operators --------------------------------------------------------------------------------

    @rule(data=st.data())
    def correct_meter(self, data: st.DataObject) -> None:
        meter_id = data.draw(st.sampled_from(sorted(self.ref.meters)))
        meter = self.ref.meters[meter_id]
        amount_sub, reserve_sub = int(to_subunits(meter.amount)), int(to_subunits(meter.reserve))
        up = st.integers(0, 10**10)  # up to $100
        amount = data.draw(st.one_of(up, st.integers(-amount_sub, 0), st.just(-amount_sub)))
        reserve = data.draw(st.one_of(up, st.integers(-reserve_sub, 0)))
        command = self._correction(meter_id, amount, reserve)
        self._submit(command, ok=True, why="correction")
        self.ref.correct(meter_id, from_subunits(amount), from_subunits(reserve))

    @precondition(lambda self: bool(self.hits))
    @rule(data=st.data(), pay=st.booleans())
    def hit_life(self, data: st.DataObject, pay: bool) -> None:
        """Validate or pay a hit: recognised -> validated -> paid, in that order only."""
        hit_id = data.draw(st.sampled_from(sorted(self.hits)))
        status = self.hits[hit_id]
        if pay:
            command: ValidateHit | PayHit = PayHit(
                command_id=self._next_id("cmd"),
                hit_id=hit_id,
                by="cashier-1",
                occurred_at=self._now(),
            )
            ok, then = status == "validated", "paid"
        else:
            command = ValidateHit(
                command_id=self._next_id("cmd"),
                hit_id=hit_id,
                by="floor-1",
                occurred_at=self._now(),
            )
            ok, then = status == "pending_validation", "validated"
        self._submit(command, ok=ok, why=f"{type(command).__name__} of a {status} hit")
        if ok:
            self.hits[hit_id] = then

    @rule(data=st.data(), excess=st.integers(1, 10**8))
    def other_operator_command(self, data: st.DataObject, excess: int) -> None:
        """The same floor activated again (accepted, nothing reseeded), or a refused command."""
        meter_id = data.draw(st.sampled_from(sorted(self.ref.meters)))
        meter = self.ref.meters[meter_id]
        amount_sub, reserve_sub = int(to_subunits(meter.amount)), int(to_subunits(meter.reserve))
        variant = data.draw(st.sampled_from(OPERATOR_VARIANTS))
        command: ActivateConfig | CorrectMeter | ValidateHit | PayHit
        match variant:
            case "activate the same floor again":
                command = ActivateConfig(
                    command_id=self._next_id("cmd"),
                    source="pa.toml",
                    text=PA,
                    by="manager-2",
                    occurred_at=self._now(),
                )
                assert len(self._submit(command, ok=True, why=variant)) == 1
                return
            case "correction: meter below zero":
                command = self._correction(meter_id, -amount_sub - excess, 0)
            case "correction: reserve below zero":
                command = self._correction(meter_id, 0, -reserve_sub - excess)
            case "correction: no by":
                command = self._correction(meter_id, 1, 0, by=" ")
            case "correction: no reason":
                command = self._correction(meter_id, 1, 0, reason="")
            case "correction: unknown meter":
                command = self._correction("tcp-nowhere", 1, 0)
            case "validate an unknown hit":
                command = ValidateHit(
                    command_id=self._next_id("cmd"), hit_id="hit-x", by="f", occurred_at="t"
                )
            case _:
                command = PayHit(
                    command_id=self._next_id("cmd"), hit_id="hit-x", by="c", occurred_at="t"
                )
        self._submit(command, ok=False, why=variant)

    def _correction(
        self,
        meter_id: str,
        amount: int,
        reserve: int,
        *,
        by: str = "manager-1",
        reason: str = "audit adjustment",
    ) -> CorrectMeter:
        return CorrectMeter(
            command_id=self._next_id("cmd"),
            meter_id=meter_id,
            amount_delta_sub=amount,
            reserve_delta_sub=reserve,
            by=by,
            reason=reason,
            occurred_at=self._now(),
        )

    # --- invariants -------------------------------------------------------------------------------

    @invariant()
    def meters_match_the_reference(self) -> None:
        assert set(self.state.meters) == set(self.ref.meters)
        for meter_id, ref in self.ref.meters.items():
            meter = self.state.meters[meter_id]
            actual = (from_subunits(meter.amount_sub), from_subunits(meter.reserve_sub))
            assert actual == (ref.amount, ref.reserve), (meter_id, actual, ref)

    @invariant()
    def meters_are_conserved_and_never_negative(self) -> None:
        for meter in self.state.meters.values():
            assert meter.explained_sub() == meter.amount_sub + meter.reserve_sub, meter
            assert meter.amount_sub >= 0, meter
            assert meter.reserve_sub >= 0, meter
        for ref in self.ref.meters.values():
            assert ref.explained() == ref.amount + ref.reserve, ref

    @invariant()
    def hits_match(self) -> None:
        assert {h: s.status for h, s in self.state.hits.items()} == self.hits

    @invariant()
    def replay_is_the_live_state(self) -> None:
        assert reduce(evolve, self.log, FloorState()) == self.state

    def teardown(self) -> None:
        """The log survives a trip through the codec and JSON and replays to the same state."""
        if not self.log:
            return
        stored = [json.loads(json.dumps(event_to_dict(e))) for e in self.log]
        assert reduce(evolve, (event_from_dict(d) for d in stored), FloorState()) == self.state


TRACK_PHASES: tuple[Phase, ...] = ("none", "open", "locked", "settled", "voided")
OPENABLE: tuple[Phase, ...] = ("none", "settled", "voided")
OPERATOR_VARIANTS = (
    "activate the same floor again",
    "correction: meter below zero",
    "correction: reserve below zero",
    "correction: no by",
    "correction: no reason",
    "correction: unknown meter",
    "validate an unknown hit",
    "pay an unknown hit",
)


# --- deals ---------------------------------------------------------------------------------------


def deal_cards(seats: Sequence[int], deck: Sequence[str], forced: Forced) -> Deal:
    """The forced cards where they were put; every other place filled from the shuffled deck."""
    used = {card for cards in forced.values() for card in cards}
    rest = iter(card for card in deck if card not in used)

    def fill(position: str, size: int) -> tuple[str, ...]:
        cards = list(forced.get(position, []))
        return tuple(cards + [next(rest) for _ in range(size - len(cards))])

    return Deal(
        dealer=fill("dealer", SIZES["dealer"]),
        community=fill("community", SIZES["community"]),
        seats={seat: fill(str(seat), 3) for seat in seats},
    )


def spell(card: str, style: int) -> str:
    """A card as devices may write it: "Th", "10h", "TH" or "10H" (schema "card")."""
    rank, suit = card[:-1], card[-1]
    rank = "10" if rank == "T" and style & 1 else rank
    return rank + (suit.upper() if style & 2 else suit)


def settlement_body(deal: Deal, style: int = 0) -> dict[str, Any]:
    """The round_settled fields of a deal, every card spelt in ``style``."""
    return {
        "dealer": [spell(c, style) for c in deal.dealer],
        "community": [spell(c, style) for c in deal.community],
        "seats": {str(s): [spell(c, style) for c in cards] for s, cards in deal.seats.items()},
    }


def _force(forced: Forced, position: str, cards: Sequence[str]) -> bool:
    """Put ``cards`` at ``position`` if none is used yet and there is room; say whether it did."""
    used = {card for held in forced.values() for card in held}
    room = SIZES.get(position, 3) - len(forced.get(position, []))
    if used & set(cards) or len(cards) > room:
        return False
    forced.setdefault(position, []).extend(cards)
    return True


def rig_akq_of_spades(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """649a.12(e)(1): a player holds AKQ of spades."""
    if players:
        _force(forced, data.draw(st.sampled_from(players)), ["As", "Ks", "Qs"])


# With two community cards of one suit, each group makes a straight flush (or royal) of five.
FIVE_CARD_PATTERNS = (
    (("J", "T"), (("A", "K", "Q"), ("9", "8", "7"))),  # a royal and a jack-high straight flush
    (("J", "T"), (("K", "Q", "9"),)),
    (("3", "2"), (("A", "5", "4"),)),  # the wheel
    (("3", "2"), (("6", "5", "4"),)),
)


def rig_five_card(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """649a.12(h)(1), (i)(1): up to two hands (players' or the dealer's) make five-card jackpots."""
    suit = data.draw(st.sampled_from("shdc"))
    community, groups = data.draw(st.sampled_from(FIVE_CARD_PATTERNS))
    if not _force(forced, "community", [rank + suit for rank in community]):
        return
    holders = data.draw(
        st.lists(
            st.sampled_from([*players, "dealer"]), unique=True, min_size=1, max_size=len(groups)
        )
    )
    for holder, group in zip(holders, groups, strict=False):
        _force(forced, holder, [rank + suit for rank in group])


def rig_five_of_six(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """649a.12(j)(1): a player's AKQ and the dealer's J, T of one suit make a royal of six."""
    if not players:
        return
    suit = data.draw(st.sampled_from("shdc"))
    if _force(forced, "dealer", ["J" + suit, "T" + suit]):
        _force(forced, data.draw(st.sampled_from(players)), ["A" + suit, "K" + suit, "Q" + suit])


def rig_nothing(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """An honest deal."""


RIGS = (rig_nothing, rig_five_card, rig_akq_of_spades, rig_five_of_six)


def rig(data: st.DataObject, seats: Sequence[int]) -> Forced:
    """Up to two rigs (or none) forced into the deal; a rig that does not fit is left out."""
    forced: Forced = {}
    players = [str(s) for s in seats]
    for chosen in data.draw(st.lists(st.sampled_from(RIGS), min_size=1, max_size=2), label="rigs"):
        chosen(data, players, forced)
    return forced


# --- refused table events, one reason each ------------------------------------------------------

Maker = Callable[[FloorMachine, st.DataObject, Track], TableEvent | None]


def _open_while_busy(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "round_opened", round_id=f"{t.round_id}-next", game="three_card_poker")


def _open_reused_round_id(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "round_opened", round_id=t.round_id, game="three_card_poker")


def _open_wrong_game(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    game = data.draw(st.sampled_from(("lunar_poker", "three_card_prime", "four_card_prime")))
    return m._event(t, "round_opened", round_id=f"{t.table_id}-other", game=game)


def _wager(
    m: FloorMachine,
    t: Track,
    seat: int,
    *,
    kind: str,
    amount: str,
    on: str = "own",
    round_id: str | None = None,
) -> TableEvent:
    body: dict[str, object] = {"seat": seat, "wager": kind, "amount": amount, "on": on}
    if round_id is not None:
        body["round_id"] = round_id
    return m._event(t, "wager_placed", **body)


def _wrong_amount(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    kind = data.draw(st.sampled_from(t.offered))
    unit = cents(UNITS[t.table_id])
    amount = data.draw(st.sampled_from((unit * 2, unit + 1, unit - 1, 500 if unit == 100 else 100)))
    return _wager(m, t, data.draw(st.sampled_from(SEATS)), kind=kind, amount=money(amount))


def _unknown_wager(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    # "super" is a Lunar Poker wager; tcp-7 links only the Progressive to a meter.
    names = ["lucky_sevens", "super", "bet", *(k for k in FIVE_KINDS if k not in t.offered)]
    kind = data.draw(st.sampled_from(names))
    return _wager(m, t, data.draw(st.sampled_from(SEATS)), kind=kind, amount=UNITS[t.table_id])


FIVE_KINDS = ("five_card_progressive", "five_card_hand_bonus", "five_of_six_progressive")


def _bad_seat(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    seat = data.draw(st.sampled_from((0, 8, 9, 12)))
    kind = data.draw(st.sampled_from(t.offered))
    return _wager(m, t, seat, kind=kind, amount=UNITS[t.table_id])


def _wager_after_lock(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    kind = data.draw(st.sampled_from(t.offered))
    return _wager(m, t, data.draw(st.sampled_from(SEATS)), kind=kind, amount=UNITS[t.table_id])


def _wrong_target(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    # 649a.12(i)(2): only the Five Card Hand Bonus rides on the dealer's hand; no TCP wager rides
    # on another player's.
    kind, on = data.draw(
        st.sampled_from(
            [(k, "dealer") for k in (*t.offered, "ante") if k != "five_card_hand_bonus"]
            + [(k, "seat:3") for k in t.offered]
        )
    )
    amount = UNITS[t.table_id] if kind in t.offered else "5.00"
    seat = data.draw(st.sampled_from((1, 2, 4, 5)))
    return _wager(m, t, seat, kind=kind, amount=amount, on=on)


def _wager_wrong_round(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    return _wager(m, t, 1, kind="ante", amount="5.00", round_id=f"{t.table_id}-elsewhere")


def _lock_again(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "wagers_locked")


def _decision_without_ante(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent | None:
    seats = [s for s in SEATS if t.ante(s) is None]
    if not seats:
        return None
    return m._event(t, "decision", seat=data.draw(st.sampled_from(seats)), action="fold")


def _decision_of(action: str, extra: int, seats: Callable[[Track], list[int]]) -> Maker:
    """A decision by a seat with an ante: ``action`` with ante + ``extra`` cents."""

    def make(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent | None:
        choices = seats(t)
        if not choices:
            return None
        seat = data.draw(st.sampled_from(choices))
        amount = money((t.ante(seat) or 0) + extra)
        return m._event(t, "decision", seat=seat, action=action, amount=amount)

    return make


def _with_ante(t: Track) -> list[int]:
    return [s for s in t.seats() if t.ante(s) is not None]


def _settle_with(change: Callable[[Deal, Track], Deal]) -> Maker:
    """A settlement of an honest deal, spoilt by ``change``."""

    def make(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
        deal = change(deal_cards(t.seats(), data.draw(st.permutations(DECK)), {}), t)
        return m._event(t, "round_settled", **settlement_body(deal))

    return make


def _played(t: Track) -> list[int]:
    """Seats that wagered and did not fold (whose hands are needed whatever the policy)."""
    return [s for s in t.seats() if t.decided.get(s) != "fold"]


def _missing_seat(deal: Deal, t: Track) -> Deal:
    gone = _played(t)[0]
    return Deal(deal.dealer, deal.community, {s: c for s, c in deal.seats.items() if s != gone})


def _extra_seat(deal: Deal, t: Track) -> Deal:
    free = next(s for s in SEATS if s not in deal.seats)
    dealt = {*deal.dealer, *deal.community, *(c for cards in deal.seats.values() for c in cards)}
    spare = tuple(c for c in DECK if c not in dealt)[:3]
    return Deal(deal.dealer, deal.community, {**deal.seats, free: spare})


def _card_twice(deal: Deal, t: Track) -> Deal:
    return Deal(deal.dealer, (deal.community[0], deal.dealer[0]), deal.seats)


def _card_twice_spelt_two_ways(deal: Deal, t: Track) -> Deal:
    """The dealer's first card again in the community, spelt "10H" or "2C": still one card."""
    return Deal(deal.dealer, (deal.community[0], spell(deal.dealer[0], 3)), deal.seats)


def _one_community_card(deal: Deal, t: Track) -> Deal:
    return Deal(deal.dealer, deal.community[:1], deal.seats)


def _short_hand(deal: Deal, t: Track) -> Deal:
    seats = t.seats()
    if not seats:
        return Deal(deal.dealer[:2], deal.community, deal.seats)
    return Deal(deal.dealer, deal.community, {**deal.seats, seats[-1]: deal.seats[seats[-1]][:2]})


def _honest(deal: Deal, t: Track) -> Deal:
    return deal


def _resend(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    """A device resends an event the controller already accepted (same id, same seq)."""
    return data.draw(st.sampled_from(t.accepted))


def _reuse_event_id(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent | None:
    """A new, otherwise valid wager that reuses an event id of the round."""
    seat = data.draw(st.sampled_from(SEATS))
    if t.has(seat, "pair_plus", "own"):
        return None
    reused = data.draw(st.sampled_from(t.round_event_ids))
    return m._event(t, "wager_placed", seat=seat, wager="pair_plus", amount="5.00", event_id=reused)


def _seq_backwards(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    """An otherwise valid event whose seq is not after the table's last accepted one."""
    seq = max(0, t.last_seq - data.draw(st.integers(0, 5)))
    match t.phase:
        case "open":
            return m._event(t, "wagers_locked", seq=seq)
        case "locked":
            return m._event(t, "round_voided", seq=seq, reason="seq test")
    return m._event(t, "round_opened", seq=seq, round_id="r-seq", game="three_card_poker")


def _void_after_settlement(m: FloorMachine, data: st.DataObject, t: Track) -> TableEvent:
    return m._event(t, "round_voided", reason="too late")


Applies = Callable[[Track], bool]


def phase(*phases: Phase, where: Applies = lambda _: True) -> Applies:
    """A table in one of ``phases`` for which ``where`` holds."""
    return lambda t: t.phase in phases and where(t)


def _any_without_ante(t: Track) -> bool:
    return any(t.ante(s) is None for s in SEATS)


INVALID: dict[str, tuple[Applies, Maker]] = {
    "open while a round is open": (phase("open", "locked"), _open_while_busy),
    "open with the last round id": (phase("settled", "voided"), _open_reused_round_id),
    "open another game": (phase(*OPENABLE), _open_wrong_game),
    "wager of the wrong amount": (phase("open"), _wrong_amount),
    "unknown wager": (phase("open"), _unknown_wager),
    "wager on a seat the table lacks": (phase("open"), _bad_seat),
    "wager after the lock": (phase("locked", "settled", "voided"), _wager_after_lock),
    "wager on a hand it cannot ride": (phase("open"), _wrong_target),
    "wager for another round": (phase("open", "locked"), _wager_wrong_round),
    "lock twice": (phase("locked", "settled", "voided"), _lock_again),
    "decision before the lock": (
        phase("open", where=lambda t: bool(_with_ante(t))),
        _decision_of("play", 0, _with_ante),
    ),
    "decision without an ante": (phase("locked", where=_any_without_ante), _decision_without_ante),
    "play not equal to the ante": (
        phase("locked", where=lambda t: bool(t.undecided())),
        _decision_of("play", 100, lambda t: t.undecided()),
    ),
    "decision not in the game": (
        phase("locked", where=lambda t: bool(t.undecided())),
        _decision_of("raise", 0, lambda t: t.undecided()),
    ),
    "second decision": (
        phase("locked", where=lambda t: bool(t.decided)),
        _decision_of("fold", 0, lambda t: sorted(t.decided)),
    ),
    "decision after settlement": (
        phase("settled", where=lambda t: bool(_with_ante(t))),
        _decision_of("fold", 0, _with_ante),
    ),
    "settle before the lock": (phase("open"), _settle_with(_honest)),
    "settle twice": (phase("settled", "voided"), _settle_with(_honest)),
    "settle without a seat that played": (
        phase("locked", where=lambda t: bool(_played(t))),
        _settle_with(_missing_seat),
    ),
    "settle with a seat that did not wager": (
        phase("locked", where=lambda t: len(t.seats()) < len(SEATS)),
        _settle_with(_extra_seat),
    ),
    "settle with a card twice": (phase("locked"), _settle_with(_card_twice)),
    "settle with a card twice, spelt two ways": (
        phase("locked"),
        _settle_with(_card_twice_spelt_two_ways),
    ),
    "settle with one community card": (phase("locked"), _settle_with(_one_community_card)),
    "settle with a short hand": (phase("locked"), _settle_with(_short_hand)),
    "void after settlement": (phase("settled", "voided"), _void_after_settlement),
    "resent event": (phase(*TRACK_PHASES, where=lambda t: bool(t.accepted)), _resend),
    "duplicate event_id in the round": (
        phase("open", where=lambda t: bool(t.round_event_ids)),
        _reuse_event_id,
    ),
    "seq not increasing": (phase(*TRACK_PHASES, where=lambda t: t.last_seq > 0), _seq_backwards),
}


# --- the tests -----------------------------------------------------------------------------------


def _run(max_examples: int, steps: int) -> None:
    run_state_machine_as_test(
        FloorMachine,
        settings=settings(
            max_examples=max_examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )


def test_floor_against_the_reference_model() -> None:
    _run(max_examples=60, steps=50)


@pytest.mark.slow
def test_floor_against_the_reference_model_at_length() -> None:
    _run(max_examples=300, steps=100)


# --- kept examples -------------------------------------------------------------------------------


def _contract_run(*raws: dict[str, object]) -> tuple[FloorState, list[Event]]:
    """The example floor, then each contract dict in turn (table tcp-1, round r1, seq 1, 2, ...)."""
    state, log = FloorState(), list[Event]()
    command = ActivateConfig(
        command_id="c0", source="pa.toml", text=PA, by="m", occurred_at="2026-01-01T00:00:00Z"
    )
    commands: list[ActivateConfig | TableEvent] = [command]
    for seq, raw in enumerate(raws, start=1):
        head = {"event_id": f"e{seq}", "table_id": "tcp-1", "round_id": "r1", "seq": seq}
        commands.append(
            from_contract({**head, "occurred_at": f"2026-01-01T00:00:{seq:02d}Z", **raw})
        )
    for each in commands:
        events = decide(state, each)
        state = reduce(evolve, events, state)
        log.extend(events)
    return state, log


def test_a_settlement_may_leave_out_a_folded_players_hand() -> None:
    # Kept from the machine's first runs: the contract (round_settled: "Hands of folded players
    # may be left out") and the core disagreed until d8152fa.
    # 649a.11(b)(2), (c): seat 2 folds, forfeiting its Ante and Progressive; its cards go to the
    # discard rack before the dealer reveals, so the device sends only seat 1's hand. Both $1
    # Progressive contributions stay on the meter: $1,000 + 2 x $0.14.
    wager = {"type": "wager_placed", "amount": "1.00"}
    state, log = _contract_run(
        {"type": "round_opened", "game": "three_card_poker"},
        {**wager, "seat": 1, "wager": "ante"},
        {**wager, "seat": 1, "wager": "progressive"},
        {**wager, "seat": 2, "wager": "ante"},
        {**wager, "seat": 2, "wager": "progressive"},
        {"type": "wagers_locked"},
        {"type": "decision", "seat": 1, "action": "play", "amount": "1.00"},
        {"type": "decision", "seat": 2, "action": "fold"},
        {
            "type": "round_settled",
            "dealer": ["2c", "5d", "8s"],
            "community": ["Jh", "Th"],
            "seats": {"1": ["3h", "4h", "9c"]},
        },
    )
    refused = [e.reason for e in log if isinstance(e, EventRejected)]
    assert refused == []
    assert state.meters["tcp-progressive"].amount_sub == to_subunits(Fraction("1000.28"))
