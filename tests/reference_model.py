"""A deliberately small reference of the progressive meters, written from the rule texts and the
policies the README states where the texts leave a choice.

It shares no code with the controller: money is `fractions.Fraction` dollars (so nothing is
ever rounded by accident), hands are recognised by a tiny evaluator of its own that knows only the
hands that move a meter, and settlement is one loop in the order the rules give. Tests compare the
controller with it to the sub-unit. What it encodes, each with its rule:

- 649a.12(e)(3), (h)(3), (i)(4), (j)(3): seed, reseed, primary and reserve rate "for 1" of the wager
  unit; contributions are taken when wagers lock and kept through a fold (README policy).
- 649a.12(e)(1), (h)(1), (i)(1), (j)(1): the percentage-of-meter hands (AKQ of spades 100%; royal
  100% and straight flush 10%; 5 of 6 royal of spades 100% and any other royal 25%). The "for 1"
  hands are paid at the table and never touch a meter, so the model ignores them.
- 649a.11(c): settlement from the highest seat down, wager kinds in the order (5), (7), (8), (9).
- 649a.12(e)(4), (h)(4), (j)(4): a winner is paid from the meter as it stands at that player's turn,
  rounded down to the cent; the sub-cent rest stays on the meter. A 100% hit restarts the meter at
  reseed + reserve (649a.12(i)(4): reseed $0, the 8% reserve is the next start).
- 649a.12(i)(2): a dealer-hand percentage jackpot is split equally among the dealer wagerers; the
  indivisible cents go one each to the first of them in settlement order (README policy), and it is
  paid at the turn of the first dealer wagerer, after that player's own-hand wager (the example's
  ``dealer_hand_turn = "first_wagerer_after_own"``).
- 649a.11(b)(2)-(3): a fold forfeits the Progressive and Five-Card Progressive wagers, not the Five
  Card Hand Bonus or 5 of 6.
- A void before settlement takes the round's contributions back, as far as they are still there
  (README policy; the rule texts say nothing of voids): never below zero (rules README 6-7), and
  nothing once a 100% hit of that meter since the lock has paid them out. A correction adds its
  deltas.
- NY 5320.8, NJ 13:69E-1.39A: a meter with a ``ceiling`` takes a contribution up to it and carries
  the rest in its overflow; a 100% hit restarts at reseed + reserve + overflow, up to the ceiling
  again (the rest stays carried); a void takes back from the overflow first (README policy). Only
  ``carry`` is modelled, not ``divert:``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import floor

CENT = Fraction(1, 100)
SUBUNITS_PER_DOLLAR = 100_000_000  # a sub-unit is a millionth of a cent (README "Money")

SETTLEMENT_KINDS = (
    "progressive",  # 649a.11(c)(5)
    "five_card_progressive",  # 649a.11(c)(7)
    "five_card_hand_bonus",  # 649a.11(c)(8)
    "five_of_six_progressive",  # 649a.11(c)(9)
)
FORFEITED_BY_FOLD = frozenset({"progressive", "five_card_progressive"})  # 649a.11(b)(2)


@dataclass(frozen=True, slots=True)
class Progression:
    """Seed and reseed "for 1" and the incrementation rates of one progressive wager."""

    seed_for_one: int
    reseed_for_one: int
    primary: Fraction
    reserve: Fraction


PROGRESSIONS: dict[str, Progression] = {
    # 649a.12(e)(3), paytable A (the example floor's choice): $1,000 for 1, primary 14%.
    "progressive": Progression(1000, 1000, Fraction(14, 100), Fraction(0)),
    # 649a.12(h)(3): $10,000 for 1, primary 21%.
    "five_card_progressive": Progression(10000, 10000, Fraction(21, 100), Fraction(0)),
    # 649a.12(i)(4): seed $10,000 for 1, reseed $0, primary 21%, reserve 8%.
    "five_card_hand_bonus": Progression(10000, 0, Fraction(21, 100), Fraction(8, 100)),
    # 649a.12(j)(3): $10,000 for 1, primary 28%.
    "five_of_six_progressive": Progression(10000, 10000, Fraction(28, 100), Fraction(0)),
}


# --- a tiny evaluator: only the hands that are paid a percentage of a meter ----------------------

RANKS = "23456789TJQKA"
ROYAL_RANKS = frozenset("TJQKA")


def parse_card(text: str) -> tuple[str, str]:
    """ "As" -> ("A", "s"); "10h" and "Th" are the same card; suit letters may be upper case."""
    rank, suit = text[:-1].upper(), text[-1].lower()
    rank = "T" if rank == "10" else rank
    if rank not in RANKS or suit not in "cdhs":
        msg = f"not a card: {text!r}"
        raise ValueError(msg)
    return rank, suit


def is_ace_king_queen_of_spades(three: Sequence[str]) -> bool:
    """649a.12(e)(1): exactly the ace, king and queen of spades."""
    return sorted(parse_card(c) for c in three) == [("A", "s"), ("K", "s"), ("Q", "s")]


def five_card_class(five: Sequence[str]) -> str | None:
    """ "royal_flush", "straight_flush" or None for exactly five cards (649a.6 rankings)."""
    cards = [parse_card(c) for c in five]
    assert len(set(cards)) == 5, five
    if len({suit for _, suit in cards}) != 1:
        return None
    ranks = {rank for rank, _ in cards}
    if ranks == ROYAL_RANKS:
        return "royal_flush"
    values = sorted(RANKS.index(rank) for rank in ranks)
    wheel = ranks == set("A2345")
    if len(values) == 5 and (values[-1] - values[0] == 4 or wheel):
        return "straight_flush"
    return None


def royal_suits(cards: Iterable[str]) -> set[str]:
    """The suits in which ``cards`` hold a whole royal flush (ten to ace)."""
    held = {parse_card(c) for c in cards}
    return {suit for suit in "cdhs" if all((rank, suit) in held for rank in ROYAL_RANKS)}


# --- the meters -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Meter:
    """One meter in dollars, and the running totals that must explain it."""

    kind: str
    unit: Fraction
    amount: Fraction
    reserve: Fraction = Fraction(0)
    seeded: Fraction = Fraction(0)
    contributed: Fraction = Fraction(0)
    paid: Fraction = Fraction(0)
    corrected: Fraction = Fraction(0)
    ceiling: Fraction | None = None  # NY 5320.8: the meter never shows more; the rest is carried
    overflow: Fraction = Fraction(0)

    def room(self) -> Fraction | None:
        """How much more the meter may take before its ceiling (None: no ceiling)."""
        return None if self.ceiling is None else max(Fraction(0), self.ceiling - self.amount)

    def take(self, primary: Fraction) -> None:
        """A contribution: up to the ceiling on the meter, the rest carried in the overflow."""
        room = self.room()
        kept = primary if room is None else min(primary, room)
        self.amount += kept
        self.overflow += primary - kept

    @property
    def progression(self) -> Progression:
        """The rule's seed, reseed and rates for this meter's wager."""
        return PROGRESSIONS[self.kind]

    def explained(self) -> Fraction:
        """seeded + contributed - paid + corrected (must equal amount + reserve + overflow)."""
        return self.seeded + self.contributed - self.paid + self.corrected

    def pay(self, share: Fraction) -> int:
        """Pay ``share`` of the meter as it stands, rounded down to the cent; returns cents."""
        cents = max(0, floor(self.amount * share / CENT))
        self.amount -= cents * CENT
        self.paid += cents * CENT
        if share == 1:
            # 649a.12(e)(3) etc.: restart at reseed, plus the reserve where there is one ((i)(4));
            # the sub-cent rest that was not paid stays.
            # NJ 13:69E-1.39A: the overflow joins the restart, up to the ceiling again.
            reseed = self.progression.reseed_for_one * self.unit
            self.amount += reseed + self.reserve + self.overflow
            self.seeded += reseed
            self.reserve = self.overflow = Fraction(0)
            if self.ceiling is not None and self.amount > self.ceiling:
                self.amount, self.overflow = self.ceiling, self.amount - self.ceiling
        return cents


@dataclass(frozen=True, slots=True)
class Wager:
    """A progressive wager as placed: the seat whose money it is, the kind, own or dealer hand."""

    seat: int
    kind: str
    on: str = "own"


@dataclass(frozen=True, slots=True)
class Award:
    """One percentage-of-meter award: every winner's cents, in settlement order."""

    meter_id: str
    kind: str
    on: str
    hand: str
    shares: tuple[tuple[int, int], ...]  # (seat, cents)


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards at settlement."""

    dealer: tuple[str, ...]
    community: tuple[str, ...]
    seats: Mapping[int, tuple[str, ...]]


@dataclass(slots=True)
class ReferenceFloor:
    """Meters of a floor, and each table's contributions of the round in play (for a void)."""

    links: dict[str, dict[str, str]]  # table -> wager kind -> meter
    meters: dict[str, Meter]
    pending: dict[str, list[tuple[str, Fraction, Fraction]]] = field(default_factory=dict)
    fed: dict[str, Fraction] = field(default_factory=dict)  # table -> what its round put in

    @classmethod
    def from_toml(cls, text: str) -> ReferenceFloor:
        """The meters of a floor file, each seeded at "for 1" times its tables' wager unit."""
        raw = tomllib.loads(text)
        links: dict[str, dict[str, str]] = {}
        meters: dict[str, Meter] = {}
        ceilings = {m: entry.get("ceiling") for m, entry in raw["meters"].items()}
        assert not any("divert" in str(e.get("overflow", "")) for e in raw["meters"].values())
        for table_id, table in raw["tables"].items():
            links[table_id] = dict(table.get("meters", {}))
            unit = Fraction(table["wager_unit"])
            for kind, meter_id in links[table_id].items():
                if meter_id not in meters:
                    seed = PROGRESSIONS[kind].seed_for_one * unit
                    ceiling = ceilings.get(meter_id)
                    meters[meter_id] = Meter(
                        kind=kind,
                        unit=unit,
                        amount=seed,
                        seeded=seed,
                        ceiling=None if ceiling is None else Fraction(ceiling),
                    )
                assert meters[meter_id].unit == unit, "a meter has one wager unit"
        return cls(links=links, meters=meters)

    def lock(self, table_id: str, wagers: Iterable[Wager]) -> None:
        """Wagers locked: each progressive wager of one unit feeds its meter and reserve."""
        taken = self.pending.setdefault(table_id, [])
        for wager in wagers:
            meter_id = self.links[table_id].get(wager.kind)
            if meter_id is None:
                continue
            meter = self.meters[meter_id]
            primary = meter.unit * meter.progression.primary
            reserve = meter.unit * meter.progression.reserve
            meter.take(primary)
            meter.reserve += reserve
            meter.contributed += primary + reserve
            taken.append((meter_id, primary, reserve))
            self.fed[table_id] = self.fed.get(table_id, Fraction(0)) + primary + reserve

    def void(self, table_id: str) -> Fraction:
        """A void before settlement takes back what the round contributed and is still there;
        returns what it could not take back (paid out by a 100% hit, or corrected away)."""
        owed: dict[str, tuple[Fraction, Fraction]] = {}
        for meter_id, primary, reserve in self.pending.pop(table_id, []):
            p, r = owed.get(meter_id, (Fraction(0), Fraction(0)))
            owed[meter_id] = (p + primary, r + reserve)
        left = self.fed.pop(table_id, Fraction(0))
        for meter_id, (fed, fed_reserve) in owed.items():
            meter = self.meters[meter_id]
            # Policy (README): what went above the ceiling came last, so the overflow goes first.
            primary = max(Fraction(0), min(fed, meter.amount + meter.overflow))
            from_overflow = min(primary, meter.overflow)
            reserve = max(Fraction(0), min(fed_reserve, meter.reserve))
            meter.overflow -= from_overflow
            meter.amount -= primary - from_overflow
            meter.reserve -= reserve
            meter.contributed -= primary + reserve
            left -= primary + reserve
        return left

    def correct(self, meter_id: str, amount: Fraction, reserve: Fraction) -> None:
        """An authorised correction: the deltas, as given."""
        meter = self.meters[meter_id]
        meter.amount += amount
        meter.reserve += reserve
        meter.corrected += amount + reserve

    def settle(
        self, table_id: str, wagers: Sequence[Wager], folded: Iterable[int], deal: Deal
    ) -> list[Award]:
        """The percentage-of-meter awards of a round, paid one after the other."""
        self.pending.pop(table_id, None)
        self.fed.pop(table_id, None)
        gone = frozenset(folded)
        awards: list[Award] = []
        for kind in SETTLEMENT_KINDS:
            meter_id = self.links[table_id].get(kind)
            if meter_id is None:
                continue
            dealer_wagerers = sorted(
                {w.seat for w in wagers if (w.kind, w.on) == (kind, "dealer")}, reverse=True
            )
            for seat in sorted({w.seat for w in wagers}, reverse=True):  # 649a.11(c)
                own = Wager(seat, kind, "own") in wagers
                if own and not (kind in FORFEITED_BY_FOLD and seat in gone):
                    won = _percentage_hand(kind, deal.seats[seat], deal)
                    if won is not None:
                        hand, share = won
                        cents = self._pay(meter_id, share)
                        awards.append(Award(meter_id, kind, "own", hand, ((seat, cents),)))
                if dealer_wagerers and seat == dealer_wagerers[0]:
                    # 649a.12(i)(2), policy "first_wagerer_after_own": at the first dealer
                    # wagerer's turn, after that player's own-hand wager.
                    won = _five_card_share(five_card_class([*deal.dealer, *deal.community]))
                    if won is not None:
                        hand, share = won
                        shares = split_equally(self._pay(meter_id, share), dealer_wagerers)
                        awards.append(Award(meter_id, kind, "dealer", hand, shares))
        return awards

    def _pay(self, meter_id: str, share: Fraction) -> int:
        """Pay a share of a meter; a 100% hit also pays out every open round's contributions."""
        cents = self.meters[meter_id].pay(share)
        if share == 1:
            for table_id, taken in self.pending.items():
                self.pending[table_id] = [entry for entry in taken if entry[0] != meter_id]
        return cents


def split_equally(cents: int, seats: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Equal parts in settlement order; the indivisible cents one each to the first seats."""
    each, extra = divmod(cents, len(seats))
    return tuple((seat, each + (1 if i < extra else 0)) for i, seat in enumerate(seats))


def _percentage_hand(kind: str, own: Sequence[str], deal: Deal) -> tuple[str, Fraction] | None:
    """The percentage-of-meter hand a player's wager of ``kind`` holds, if any, and its share."""
    match kind:
        case "progressive":
            if is_ace_king_queen_of_spades(own):
                return "ace_king_queen_of_spades", Fraction(1)
            return None
        case "five_card_progressive" | "five_card_hand_bonus":
            return _five_card_share(five_card_class([*own, *deal.community]))
        case "five_of_six_progressive":
            suits = royal_suits([*own, *deal.dealer])
            if "s" in suits:
                return "royal_flush_of_spades", Fraction(1)
            return ("royal_flush", Fraction(1, 4)) if suits else None
    msg = f"unknown progressive wager {kind!r}"
    raise ValueError(msg)


def _five_card_share(hand: str | None) -> tuple[str, Fraction] | None:
    if hand == "royal_flush":
        return hand, Fraction(1)
    if hand == "straight_flush":
        return hand, Fraction(1, 10)
    return None


def to_subunits(dollars: Fraction) -> Fraction:
    """Dollars as sub-units (a whole number whenever the rates are whole parts per million)."""
    return dollars * SUBUNITS_PER_DOLLAR


def from_subunits(subunits: int) -> Fraction:
    """Sub-units as dollars."""
    return Fraction(subunits, SUBUNITS_PER_DOLLAR)
