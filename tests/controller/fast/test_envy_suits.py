"""An Envy table paid only on hands of one suit skips the holders whose cards cannot make one
(`controller.fast.settle._qualifying`), which rests on two facts proven here: the names an
unsuited hand answers to are `hands.UNSUITED_NAMES` (asked of the reference for every unsuited
classification entry), and `settle_ctx.may_be_suited` is False only when `hands.formed` forms a
hand of an unsuited entry. The settlement itself is held to the reference by the differential
tests (``tests/controller/fast/test_differential.py``, the engine's in ``tests/streams/embedded``).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config.floor import MeterDef
from controller.fast import hands
from controller.fast.settle_ctx import may_be_suited
from controller.fast.tables import MeterFacts
from controller.model.cards import FULL_DECK
from controller.rules.hands import five_card, three_card
from tests.controller.scenario import PA
from tests.controller.scenario import given as floor_given

SOURCES = ("three_card", "five_card", "five_of_six")


def test_the_unsuited_names_are_those_of_every_unsuited_entry() -> None:
    """Each entry's names read its key and the first card's suit only (`hands._reference_names`):
    every unsuited entry is asked with a first card of each suit."""
    for kind, table, sources in (
        ("three", three_card._UNSUITED, ("three_card",)),
        ("five", five_card._UNSUITED, ("five_card", "five_of_six")),
    ):
        names = {
            name
            for entry in table.values()
            for suit in range(4)
            for name in hands._reference_names(kind, entry, suit)
        }
        for source in sources:
            assert hands.UNSUITED_NAMES[source] == names


def _one_suit(hand: hands.Hand) -> bool:
    return len({FULL_DECK[card].suit for card in hand[2]}) == 1


#: Decks of two suits (26 cards): many pools hold three or five of a suit.
_DEALS = st.permutations([i for i in range(52) if i % 4 in {0, 3}]) | st.permutations(range(52))


@settings(max_examples=600, deadline=None)
@given(_DEALS, st.sampled_from(SOURCES), st.integers(0, 1))
def test_a_pool_that_cannot_be_suited_forms_an_unsuited_hand(
    deck: list[int], source: str, sixth: int
) -> None:
    own = list(deck[: 3 + sixth])
    dealer, community = list(deck[4:7]), list(deck[7:9])
    if source == "three_card" and sixth:
        assert may_be_suited(source, own, dealer, community)  # four cards: formed refuses them
        return
    allowed = may_be_suited(source, own, dealer, community)
    hand = hands.formed(source, own, dealer, community)
    pool = (
        own if source == "three_card" else own + (dealer if source == "five_of_six" else community)
    )
    need = 3 if source == "three_card" else 5
    most = max(sum(1 for card in pool if card % 4 == suit) for suit in range(4))
    assert allowed == (most >= need)
    if not allowed:
        assert not _one_suit(hand)
        assert set(hand[0]) <= hands.UNSUITED_NAMES[source]


def test_the_pa_envy_tables_are_paid_on_hands_of_one_suit_only() -> None:
    """649a.12(e)(5), (h), (j): A-K-Q suited, straight and royal flushes."""
    config = floor_given(PA).state.config
    assert config is not None
    meters: list[MeterDef] = [m for m in config.meters.values() if m.progressive.envy]
    assert meters
    for meter in meters:
        facts = MeterFacts(meter)
        assert facts.suited_envy
        assert all(facts.suited_envy.values())
