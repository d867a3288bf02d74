"""`controller.fast.build.builder` makes the object the class's own constructor makes: equal, of
the same type, hashing and encoding to the same bytes, defaults included; and it calls the
constructor itself for a class it cannot vouch for."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.fast.build import DECISION_EVENT, WAGER_EVENT, builder
from controller.fast.contribution import contribution
from controller.model.events import ContributionRecorded
from controller.model.table_events import DecisionMade, WagerPlaced
from streams.codec import encode

GIVEN = tuple(f.name for f in fields(ContributionRecorded))[:12]
TEXT = st.text(max_size=12)
SUB = st.integers(min_value=0, max_value=10**15)


@given(st.tuples(TEXT, TEXT, TEXT, st.integers(1, 9), TEXT, TEXT, SUB, SUB, SUB, SUB, TEXT, SUB))
def test_a_contribution_is_built_as_its_constructor_builds_it(values: tuple[object, ...]) -> None:
    expected = ContributionRecorded(**dict(zip(GIVEN, values, strict=True)))  # type: ignore[arg-type]
    for build in (builder(ContributionRecorded, GIVEN), contribution):
        built = build(*values)
        assert type(built) is ContributionRecorded
        assert built == expected
        assert hash(built) == hash(expected)
        assert encode(built) == encode(expected)
        assert (built.diverted_sub, built.divert_to) == (0, "")  # the declared defaults


def test_the_fields_given_may_come_in_any_order() -> None:
    order = ("overflow_sub", *reversed(GIVEN[:11]))
    values = (7, *range(11))
    assert builder(ContributionRecorded, order)(*values) == ContributionRecorded(
        **dict(zip(order, values, strict=True))
    )


@dataclass(frozen=True, slots=True)
class _Checked:
    amount: int

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise ValueError(self.amount)


@dataclass(frozen=True, slots=True)
class _Factory:
    amount: int
    tags: list[str] = field(default_factory=list)


def test_a_class_with_a_post_init_check_still_runs_it() -> None:
    build = builder(_Checked, ("amount",))
    assert build(3) == _Checked(3)
    with pytest.raises(ValueError, match="-1"):
        build(-1)


def test_a_default_factory_makes_a_fresh_default_each_time() -> None:
    build = builder(_Factory, ("amount",))
    first, second = build(1), build(1)
    assert first == _Factory(1)
    assert first.tags is not second.tags


HEAD = st.tuples(TEXT, TEXT, TEXT, SUB, TEXT, st.integers(1, 12))


@given(HEAD, TEXT, st.integers(1, 10**9), TEXT)
def test_a_frozen_wager_is_built_as_its_constructor_builds_it(
    head: tuple[str, str, str, int, str, int], wager: str, cents: int, on: str
) -> None:
    """`WAGER_EVENT`, which `controller.fast.records` freezes a kept wager with."""
    event_id, table_id, round_id, seq, occurred_at, seat = head
    expected = WagerPlaced(
        event_id=event_id,
        table_id=table_id,
        round_id=round_id,
        seq=seq,
        occurred_at=occurred_at,
        seat=seat,
        wager=wager,
        amount_cents=cents,
        on=on,
    )
    built = WAGER_EVENT(*head, wager, cents, on)
    assert type(built) is WagerPlaced
    assert (built, hash(built), encode(built)) == (expected, hash(expected), encode(expected))


@given(HEAD, TEXT, st.none() | st.integers(1, 10**9), st.lists(TEXT, max_size=5).map(tuple))
def test_a_frozen_decision_is_built_as_its_constructor_builds_it(
    head: tuple[str, str, str, int, str, int],
    action: str,
    cents: int | None,
    discards: tuple[str, ...],
) -> None:
    """`DECISION_EVENT`, which `controller.fast.records` freezes a kept decision with."""
    event_id, table_id, round_id, seq, occurred_at, seat = head
    expected = DecisionMade(
        event_id=event_id,
        table_id=table_id,
        round_id=round_id,
        seq=seq,
        occurred_at=occurred_at,
        seat=seat,
        action=action,
        amount_cents=cents,
        discards=discards,
    )
    built = DECISION_EVENT(*head, action, cents, discards)
    assert type(built) is DecisionMade
    assert (built, hash(built), encode(built)) == (expected, hash(expected), encode(expected))
