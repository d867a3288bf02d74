"""Every rejection: the input is refused with a reason an operator can act on, and NO state changes.

`rejected` compares the whole floor state before and after. The stages below are the table's
position when the refused event arrives: round r1 at tcp-1 open (seat 2 has an ante and a $1
progressive), locked, or settled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from controller.model.errors import InvalidEvent
from controller.model.table_events import from_contract
from tests.controller.scenario import (
    Command,
    Scenario,
    activate,
    at,
    decision,
    given,
    locked,
    opened,
    play,
    rejected,
    settled,
    voided,
    wager,
)

DEALER = "2c 5d 8s"
SEAT2 = "3h 4h 9c"


def at_open() -> Scenario:
    """tcp-1 round r1 open; seat 2 placed an ante and a $1 progressive."""
    return given().events(
        opened("tcp-1", "r1"), wager(2, "ante", "1.00"), wager(2, "progressive", "1.00")
    )


def at_locked() -> Scenario:
    """The same round, wagers locked."""
    return at_open().events(locked())


def at_settled() -> Scenario:
    """The same round, settled."""
    return at_locked().events(settled(dealer=DEALER, seats={2: SEAT2}))


def at_open_dup() -> Scenario:
    """The open round, where seat 3's ante carried event_id "dup-1"."""
    return at_open().events(at(wager(3, "ante", "1.00"), event_id="dup-1"))


STAGES: dict[str, Callable[[], Scenario]] = {
    "open": at_open,
    "open_dup": at_open_dup,
    "locked": at_locked,
    "settled": at_settled,
}

CASES: list[tuple[str, str, Command, tuple[str, ...]]] = [
    # (stage, id, command, fragments of the reason)
    ("open", "unknown table", at(wager(1, "ante", "1.00"), table="tcp-99"), ("unknown table",)),
    ("open", "seat 0", wager(0, "ante", "1.00"), ("seat 0 does not exist",)),
    ("open", "seat 8 of 7", wager(8, "ante", "1.00"), ("seat 8 does not exist", "1 to 7")),
    (
        "open",
        "unit differs from the meter",
        wager(3, "progressive", "5.00"),
        ("differs from the meter's wager unit",),
    ),
    ("open", "wager not offered", wager(3, "lucky_dip", "1.00"), ("not offered",)),
    ("open", "the same wager twice", wager(2, "progressive", "1.00"), ("already has",)),
    (
        "open",
        "progressive on the dealer",
        wager(3, "progressive", "1.00", on="dealer"),
        ("cannot be placed on 'dealer'",),
    ),
    ("open", "decision before the lock", play(2, "1.00"), ("needs round 'r1' locked",)),
    ("open", "settlement before the lock", settled(dealer=DEALER, seats={2: SEAT2}), ("open",)),
    ("open", "a round while one is open", opened("tcp-1", "r2"), ("still open",)),
    (
        "open",
        "a game the table does not play",
        at(opened("tcp-2", "r1", game="lunar_poker"), table="tcp-2"),
        ("plays three_card_poker",),
    ),
    ("open", "an event of another round", at(locked(), round_id="r7"), ("current round is",)),
    ("open", "seq not increasing", at(locked(), seq=2), ("seq 2 is not after",)),
    ("open", "seq repeated", at(locked(), seq=3), ("seq 3",)),
    (
        "open_dup",
        "duplicate event_id",
        at(wager(4, "ante", "1.00"), event_id="dup-1"),
        ("duplicate event_id",),
    ),
    ("locked", "wager after the lock", wager(3, "ante", "1.00"), ("after wagers_locked",)),
    ("locked", "lock twice", locked(), ("needs round 'r1' to be open",)),
    ("locked", "unknown action", decision(2, "surrender"), ("not a decision",)),
    ("locked", "decision of a seat without ante", play(5, "1.00"), ("placed no ante",)),
    (
        "locked",
        "card twice",
        settled(dealer="2c 5d 8s", seats={2: "3h 4h 2c"}),
        ("card 2c appears twice",),
    ),
    (
        "locked",
        "card twice in one hand",
        settled(dealer="2c 5d 8s", seats={2: "3h 3h 4c"}),
        ("appears twice",),
    ),
    (
        "locked",
        "dealer with two cards",
        settled(dealer="2c 5d", seats={2: SEAT2}),
        ("dealer has 2",),
    ),
    (
        "locked",
        "seat with four cards",
        settled(dealer=DEALER, seats={2: "3h 4h 9c Ts"}),
        ("seat 2 has 4 cards",),
    ),
    (
        "locked",
        "one community card",
        settled(dealer=DEALER, community="Kd", seats={2: SEAT2}),
        ("1 community cards",),
    ),
    (
        "locked",
        "cards for a seat that did not wager",
        settled(dealer=DEALER, seats={2: SEAT2, 5: "Ah Kd 7s"}),
        ("only seats that wagered [2]",),
    ),
    (
        "locked",
        "no cards for a wagering seat",
        settled(dealer=DEALER, seats={}),
        ("every seat with a wager still in play [2]",),
    ),
    ("locked", "not a card", settled(dealer="2c 5d Zz", seats={2: SEAT2}), ("'Zz' is not a card",)),
    (
        "locked",
        "random seat not dealt",
        settled(dealer=DEALER, seats={2: SEAT2}, random_seat="6"),
        ("random_seat '6'",),
    ),
    ("settled", "void after settlement", voided(), ("void after settlement",)),
    ("settled", "settle twice", settled(dealer=DEALER, seats={2: SEAT2}), ("settled, not locked",)),
    ("settled", "decision after settlement", play(2, "1.00"), ("settled",)),
    ("settled", "reopen the same round id", opened("tcp-1", "r1"), ("already used",)),
    ("settled", "a broken configuration", activate("[policy"), ("configuration refused",)),
]


@pytest.mark.parametrize(
    ("stage", "command", "fragments"),
    [pytest.param(stage, command, fragments, id=name) for stage, name, command, fragments in CASES],
)
def test_refused_with_a_reason_and_no_change(
    stage: str, command: Command, fragments: tuple[str, ...]
) -> None:
    scenario = STAGES[stage]()
    scenario.when(command).then(rejected(*fragments))


def test_table_events_before_any_configuration_are_refused() -> None:
    outcome = Scenario().when(opened("tcp-1", "r1"))
    outcome.then(rejected("no floor configuration is active"))


def test_a_redelivered_event_is_refused_as_a_duplicate() -> None:
    # At-least-once delivery: the same event twice; the second is refused and changes nothing.
    scenario = at_open()
    event = scenario.fill(wager(5, "ante", "1.00"))
    scenario.events(event)
    scenario.when(event).then(rejected("duplicate event_id"))


@pytest.mark.parametrize("amount", ["1.005", "1", "-1.00", "0.00", "1e2", " 1.00"])
def test_an_amount_that_is_not_whole_cents_is_refused_at_the_contract(amount: str) -> None:
    raw: dict[str, object] = {
        "event_id": "e1",
        "type": "wager_placed",
        "table_id": "tcp-1",
        "round_id": "r1",
        "seq": 1,
        "occurred_at": "2026-01-01T00:00:00.000Z",
        "seat": 1,
        "wager": "progressive",
        "amount": amount,
        "on": "own",
    }
    with pytest.raises(InvalidEvent, match="amount"):
        from_contract(raw)


def test_the_contract_accepts_the_same_wager_with_whole_cents() -> None:
    raw: dict[str, object] = {
        "event_id": "e1",
        "type": "wager_placed",
        "table_id": "tcp-1",
        "round_id": "r1",
        "seq": 1,
        "occurred_at": "2026-01-01T00:00:00.000Z",
        "seat": 1,
        "wager": "progressive",
        "amount": "1.00",
    }
    expected = at(wager(1, "progressive", "1.00"), table="tcp-1", round_id="r1", seq=1)
    assert from_contract(raw) == replace(
        expected, event_id="e1", occurred_at="2026-01-01T00:00:00.000Z"
    )


def test_a_one_dollar_progressive_at_a_five_dollar_table_is_refused() -> None:
    # 649a.12(e)(3): the $5 meter's rates and seed assume $5 wagers.
    given().events(opened("tcp-7", "r1")).when(wager(3, "progressive", "1.00")).then(
        rejected("100 cents differs from the meter's wager unit of 500 cents")
    )
