"""Hand-worked golden vectors: tests/data/golden_hands.csv and golden_orderings.csv.

The expected values in the CSVs were worked out by hand from the rule texts, not produced by running
the evaluators, so a change in behaviour shows up as a failing row with its cards in the test id.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import pytest

from controller.model.cards import Card, parse_cards
from controller.model.errors import InvalidEvent
from controller.rules.hands.five_card import best_five, evaluate_five
from controller.rules.hands.four_card import best_four
from controller.rules.hands.three_card import evaluate_three

DATA = Path(__file__).parents[3] / "data"


class Hand(Protocol):
    @property
    def category(self) -> object: ...
    @property
    def key(self) -> tuple[int, tuple[int, ...]]: ...
    @property
    def names(self) -> tuple[str, ...]: ...


EVALUATORS: dict[str, Callable[[Sequence[Card]], Hand]] = {
    "three": evaluate_three,
    "five": evaluate_five,
    "best_five": best_five,
    "best_four": best_four,
}


def rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


HANDS = rows("golden_hands.csv")
ORDERINGS = rows("golden_orderings.csv")


def test_golden_files_cover_every_evaluator() -> None:
    assert {row["evaluator"] for row in HANDS} == set(EVALUATORS)
    assert {row["evaluator"] for row in ORDERINGS} == set(EVALUATORS)
    assert len(HANDS) >= 70
    assert any(row["category"] == "InvalidEvent" for row in HANDS)


@pytest.mark.parametrize("row", HANDS, ids=[f"{r['evaluator']}:{r['cards']}" for r in HANDS])
def test_golden_hand(row: dict[str, str]) -> None:
    evaluate = EVALUATORS[row["evaluator"]]
    cards = parse_cards(row["cards"].split())
    if row["category"] == "InvalidEvent":
        with pytest.raises(InvalidEvent):
            evaluate(cards)
        return
    hand = evaluate(cards)
    assert getattr(hand.category, "name", None) == row["category"]
    assert hand.names == tuple(row["names"].split("|"))


@pytest.mark.parametrize(
    "row",
    ORDERINGS,
    ids=[f"{r['evaluator']}:{r['left']} {r['relation']} {r['right']}" for r in ORDERINGS],
)
def test_golden_ordering(row: dict[str, str]) -> None:
    evaluate = EVALUATORS[row["evaluator"]]
    left = evaluate(parse_cards(row["left"].split())).key
    right = evaluate(parse_cards(row["right"].split())).key
    relation = {"<": left < right, "=": left == right, ">": left > right}
    assert relation[row["relation"]], f"expected {left} {row['relation']} {right}"
