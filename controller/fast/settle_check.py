"""`controller.rules.round_checks.check_settlement` on card numbers, on the session's round.

The reference parses every card of the settlement to a `Card`, finds repeats through a set of
cards (a hash and an equality test written in Python per card) and then checks the counts; here a
card is its deck index (`controller.fast.hands.indices`), read once and kept for forming the
round's hands. `read` answers only when the reference's check passes: for anything the reference
would refuse it returns None (or raises), and the session lets the reference word the refusal.
"""

from __future__ import annotations

from controller.fast.hands import indices
from controller.fast.records import Round
from controller.fast.tables import TableFacts
from controller.model.games import GameRules
from controller.model.table_events import RoundSettled

SIXTH_CARD = 6  # 671a.11(d)(1)(i) and Lunar Poker: a player who bought a sixth card holds six


class SettledCards:
    """The settlement's cards as deck indices, and the seats that folded (`RoundState.folded`:
    any fold decision), read once for the check and for forming the round's hands."""

    __slots__ = ("community", "dealer", "folded", "seats")

    def __init__(
        self,
        seats: dict[int, list[int]],
        dealer: list[int],
        community: list[int],
        folded: frozenset[int],
    ) -> None:
        self.seats = seats
        self.dealer = dealer
        self.community = community
        self.folded = folded


def read(
    facts: TableFacts, rules: GameRules, current: Round, e: RoundSettled
) -> SettledCards | None:
    """The cards of ``e`` if `check_settlement` accepts it for ``current`` (a locked round),
    else None. A text that is not a card raises `LookupError`, as the reference raises."""
    dealer = indices(e.dealer)
    community = indices(e.community)
    every = dealer + community
    seats: dict[int, list[int]] = {}
    for seat, texts in e.seats:
        cards = seats[seat] = indices(texts)
        every += cards
    # The All-Six Bonus card is dealt from the deck; the Magic Card only designates a card (it
    # may be in a hand, 649a.12(i)(3)), so it is read but not counted as dealt.
    if e.bonus_card is not None:
        every += indices((e.bonus_card,))
    if e.magic_card is not None:
        indices((e.magic_card,))
    if len(set(every)) != len(every):  # one deck is dealt: a card twice is a misread
        return None
    folded = frozenset(d.seat for d in current.decisions if d.action == "fold")
    if not _counts_ok(facts, rules, current, e, folded):
        return None
    return SettledCards(seats, dealer, community, folded)


def _counts_ok(
    facts: TableFacts,
    rules: GameRules,
    current: Round,
    e: RoundSettled,
    folded: frozenset[int],
) -> bool:
    """`_check_counts` and `_seats_needing_cards`."""
    if len(e.dealer) not in rules.dealer_cards:
        return False
    five_card_kinds = facts.five_card_kinds
    if five_card_kinds is None:  # a link to an undefined meter: the reference's to answer
        return False
    wagers = current.wagers
    five_card = any(w.wager in five_card_kinds for w in wagers)
    community = rules.community_cards
    needed_community = {2} if five_card and 2 in community else community
    if len(e.community) not in needed_community:
        return False
    wagering = set()
    needed = set()
    survives = rules.survives_fold
    for w in wagers:
        seat = w.seat
        wagering.add(seat)
        if seat not in folded or w.wager in survives:
            needed.add(seat)
        if w.on.startswith("seat:"):
            needed.add(int(w.on.removeprefix("seat:")))
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
