"""`controller.rules.round_checks.check_settlement` on card numbers, on the session's round.

The reference parses every card of the settlement to a `Card`, finds repeats through a set of
cards (a hash and an equality test written in Python per card) and then checks the counts; here a
card is its deck index (`controller.fast.hands.indices`), read once and kept for forming the
round's hands. `read` answers only when the reference's check passes: for anything the reference
would refuse it returns None (or raises), and the session lets the reference word the refusal.

The round's wagers are read as `SettledWager`s (`Round.settled_wagers`: most made when the wager
was accepted, from the fields its decider read), whose fields the settlement reads as native
attributes: a wager kept by the session is the door's struct or a frozen event, whose every field
read from compiled code is a lookup by name (~200 instructions; the settlement read ~210 of them a
round, bench/PROPOSALS.md).
"""

from __future__ import annotations

from controller.fast.hands import SPELLED
from controller.fast.records import Round, SettledWager
from controller.fast.tables import TableFacts
from controller.model.games import GameRules
from controller.model.table_events import RoundSettled

SIXTH_CARD = 6  # 671a.11(d)(1)(i) and Lunar Poker: a player who bought a sixth card holds six


class SettledCards:
    """The settlement's cards as deck indices, the seats that folded (`RoundState.folded`: any
    fold decision) and the round's wagers in the order placed and by kind, read once for the
    check and for settling."""

    __slots__ = ("by_kind", "community", "dealer", "folded", "seats", "wagers")

    def __init__(  # noqa: PLR0917 - what `read` read, field for field
        self,
        seats: dict[int, list[int]],
        dealer: list[int],
        community: list[int],
        folded: frozenset[int],
        wagers: list[SettledWager],
        by_kind: dict[str, list[SettledWager]],
    ) -> None:
        self.seats = seats
        self.dealer = dealer
        self.community = community
        self.folded = folded
        self.wagers = wagers
        self.by_kind = by_kind


def read(
    facts: TableFacts, rules: GameRules, current: Round, e: RoundSettled
) -> SettledCards | None:
    """The cards of ``e`` if `check_settlement` accepts it for ``current`` (a locked round),
    else None. A text that is not a card raises `LookupError`, as the reference raises."""
    index = SPELLED  # a spelling it lacks raises `KeyError`: the reference then reads it
    dealer = [index[text] for text in e.dealer]
    community = [index[text] for text in e.community]
    # one deck is dealt: a card twice is a misread (each card a bit of ``dealt``, -1 a repeat)
    dealt = _dealt(_dealt(0, dealer), community)
    seats: dict[int, list[int]] = {}
    for seat, texts in e.seats:
        cards = seats[seat] = [index[text] for text in texts]
        dealt = _dealt(dealt, cards)
    # The All-Six Bonus card is dealt from the deck; the Magic Card only designates a card (it
    # may be in a hand, 649a.12(i)(3)), so it is read but not counted as dealt.
    bonus_card = e.bonus_card
    if bonus_card is not None:
        dealt = _dealt(dealt, [index[bonus_card]])
    magic_card = e.magic_card
    if magic_card is not None and magic_card not in index:
        return None
    if dealt < 0 or len(dealer) not in rules.dealer_cards:
        return None
    folded, sixth = _folds_and_sixths(current)
    wagers = current.settled_wagers()
    by_kind: dict[str, list[SettledWager]] = {}
    if not _counts_ok(facts, rules, e, (seats, folded, sixth), wagers, by_kind):
        return None
    return SettledCards(seats, dealer, community, folded, wagers, by_kind)


def _dealt(dealt: int, cards: list[int]) -> int:
    """``dealt`` (the cards seen so far, a bit each; -1: one repeated) with ``cards`` added, or
    -1 if one of them is already there: a bit mask, not a `set` of the settlement's cards (a
    hash and an insert per card)."""
    for card in cards:
        bit = 1 << card
        if dealt & bit:  # -1 has every bit: a repeat stays -1
            return -1
        dealt |= bit
    return dealt


def _folds_and_sixths(current: Round) -> tuple[frozenset[int], list[int]]:
    """The seats that folded (`RoundState.folded`: any fold decision) and those that bought a
    sixth card, read in one pass over the round's decisions (each field read by name)."""
    folds: list[int] = []
    sixth: list[int] = []
    for d in current.decisions:
        action = d.action
        if action == "fold":
            folds.append(d.seat)
        elif action == "buy_sixth_card":
            sixth.append(d.seat)
    return frozenset(folds), sixth


def _counts_ok(  # noqa: PLR0917 - `_check_counts`, with what is read once
    facts: TableFacts,
    rules: GameRules,
    e: RoundSettled,
    read: tuple[dict[int, list[int]], frozenset[int], list[int]],
    wagers: list[SettledWager],
    by_kind: dict[str, list[SettledWager]],
) -> bool:
    """`_check_counts` (the dealer's count checked by `read`), after one pass over the wagers
    that sorts them by kind into ``by_kind``; the seats needing cards as the reference finds
    them (`_seats_needing_cards`). ``read``: the seats' cards, the seats that folded and those
    that bought a sixth card (`_folds_and_sixths`)."""
    five_card_kinds = facts.five_card_kinds
    if five_card_kinds is None:  # a link to an undefined meter: the reference's to answer
        return False
    seats, folded, sixth = read
    wagering: set[int] = set()
    for w in wagers:  # by kind, in the order placed (`settle` reads them so)
        wagering.add(w.seat)
        known = by_kind.get(w.wager)
        if known is None:
            by_kind[w.wager] = [w]
        else:
            known.append(w)
    needed = _seats_needing_cards(rules, wagers, folded, wagering)
    community = rules.community_cards
    dealt_community = len(e.community)
    if not five_card_kinds.isdisjoint(by_kind) and 2 in community:  # a five-card wager: two
        if dealt_community != 2:
            return False
    elif dealt_community not in community:
        return False
    dealt = set(seats)
    if not needed <= dealt <= wagering:
        return False
    usual = rules.player_cards
    for seat, cards in e.seats:
        count = len(cards)
        if seat in sixth:
            if count != SIXTH_CARD:
                return False
        elif count == SIXTH_CARD or count not in usual:
            return False
    lucky = e.random_seat
    return lucky in (None, "dealer") or (str(lucky).isdigit() and int(str(lucky)) in dealt)


def _seats_needing_cards(
    rules: GameRules, wagers: list[SettledWager], folded: frozenset[int], wagering: set[int]
) -> set[int]:
    """The reference's `_seats_needing_cards` on what `_counts_ok` read: every seat with a wager
    still in play and every seat another player wagered on (649a.11(c): a folded hand with
    nothing left in play is collected before the reveal). A new set: ``wagering`` is kept for
    the dealt seats' bound. The common cases (nobody folded, no wager on another seat) skip the
    filters."""
    survives = rules.survives_fold
    needed = (
        {w.seat for w in wagers if w.seat not in folded or w.wager in survives}
        if folded
        else set(wagering)
    )
    for w in wagers:
        on = w.on
        if on.startswith("seat:"):
            needed.add(int(on.removeprefix("seat:")))
    return needed
