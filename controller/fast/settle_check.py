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
    every = dealer + community
    seats: dict[int, list[int]] = {}
    for seat, texts in e.seats:
        cards = seats[seat] = [index[text] for text in texts]
        every += cards
    # The All-Six Bonus card is dealt from the deck; the Magic Card only designates a card (it
    # may be in a hand, 649a.12(i)(3)), so it is read but not counted as dealt.
    if e.bonus_card is not None:
        every.append(index[e.bonus_card])
    if e.magic_card is not None and e.magic_card not in index:
        return None
    if len(set(every)) != len(every):  # one deck is dealt: a card twice is a misread
        return None
    if len(e.dealer) not in rules.dealer_cards:
        return None
    folded = frozenset([d.seat for d in current.decisions if d.action == "fold"])
    wagers = current.settled_wagers()
    by_kind: dict[str, list[SettledWager]] = {}
    if not _counts_ok(facts, rules, current, e, folded, wagers, by_kind):
        return None
    return SettledCards(seats, dealer, community, folded, wagers, by_kind)


def _counts_ok(  # noqa: PLR0917 - `_check_counts`, with what is read once
    facts: TableFacts,
    rules: GameRules,
    current: Round,
    e: RoundSettled,
    folded: frozenset[int],
    wagers: list[SettledWager],
    by_kind: dict[str, list[SettledWager]],
) -> bool:
    """`_check_counts` (the dealer's count checked by `read`), after one pass over the wagers
    that sorts them by kind into ``by_kind``; the seats needing cards as the reference finds
    them (`_seats_needing_cards`)."""
    five_card_kinds = facts.five_card_kinds
    if five_card_kinds is None:  # a link to an undefined meter: the reference's to answer
        return False
    for w in wagers:  # by kind, in the order placed (`settle` reads them so)
        known = by_kind.get(w.wager)
        if known is None:
            by_kind[w.wager] = [w]
        else:
            known.append(w)
    five_card = not five_card_kinds.isdisjoint(by_kind)
    wagering = {w.seat for w in wagers}
    needed = _seats_needing_cards(rules, wagers, folded, wagering)
    community = rules.community_cards
    needed_community = {2} if five_card and 2 in community else community
    if len(e.community) not in needed_community:
        return False
    dealt = {seat for seat, _ in e.seats}
    if not needed <= dealt <= wagering:
        return False
    sixth = {d.seat for d in current.decisions if d.action == "buy_sixth_card"}
    usual = rules.player_cards - {SIXTH_CARD}
    for seat, cards in e.seats:
        if len(cards) not in ({SIXTH_CARD} if seat in sixth else usual):
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
    if any(on.startswith("seat:") for on in {w.on for w in wagers}):
        needed.update(int(w.on.removeprefix("seat:")) for w in wagers if w.on.startswith("seat:"))
    return needed
