"""The settlement's small parts written without a keyword call or a `Fraction` product, held to
the expressions they replace (issue 14, bench/PROPOSALS.md): the order the wagers are settled
in, a "for 1" award's amount, the dealt cards' repeat check and the highest-first order of
the hands' cards. The settlement as a whole is held to the reference by `test_differential`
and the engine's suites."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from controller.fast import settle_check
from controller.fast.records import SettledWager
from controller.fast.settle_ctx import by_seat_down, high_first, times

_SEATS = st.integers(min_value=1, max_value=12)


@given(st.lists(st.tuples(_SEATS, st.sampled_from(["own", "dealer", "seat:3"])), max_size=12))
def test_wagers_are_settled_highest_seat_first_each_seat_in_the_order_placed(
    placed: list[tuple[int, str]],
) -> None:
    wagers = [SettledWager(None, seat, f"w{n}", on) for n, (seat, on) in enumerate(placed)]  # type: ignore[arg-type]
    expected = sorted(wagers, key=lambda w: w.seat, reverse=True)
    assert [id(w) for w in by_seat_down(wagers)] == [id(w) for w in expected]


@given(
    st.fractions(min_value=-10_000, max_value=10_000),
    st.integers(min_value=-(10**12), max_value=10**12),
)
def test_a_for_one_award_is_the_fraction_s_product_truncated(value: Fraction, cents: int) -> None:
    assert times(value, cents) == int(value * cents)


@given(st.lists(st.lists(st.integers(min_value=0, max_value=51), max_size=7), max_size=6))
def test_the_dealt_cards_repeat_exactly_when_a_set_of_them_is_smaller(
    hands: list[list[int]],
) -> None:
    dealt = 0
    for cards in hands:
        dealt = settle_check._dealt(dealt, cards)
    every = [card for cards in hands for card in cards]
    assert (dealt < 0) == (len(set(every)) != len(every))
    if dealt >= 0:
        assert dealt == sum(1 << card for card in set(every))


@given(st.lists(st.integers(min_value=0, max_value=51), max_size=7))
def test_seats_high_first_are_sorted_highest_first(cards: list[int]) -> None:
    assert high_first(list(cards)) == sorted(cards, reverse=True)
