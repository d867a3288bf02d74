"""Every event type round-trips through `event_to_dict` / `event_from_dict` (and JSON), keyed by its
stable ``type`` string with a ``schema_version``, never a Python import path."""

from __future__ import annotations

import json

import pytest

from controller.codec import SCHEMA_VERSION, event_from_dict, event_to_dict
from controller.model.errors import InvalidEvent
from controller.model.events import DERIVED_EVENT_TYPES, EventRejected, ProgressiveHit
from controller.model.table_events import TABLE_EVENT_TYPES, DecisionMade
from tests.controller.scenario import (
    PA,
    Scenario,
    activate,
    at,
    correct,
    given,
    locked_round,
    pay,
    play,
    settled,
    sub,
    validate,
    voided,
    wager,
)
from tests.controller.test_mystery import armed_floor, one_wager
from tests.controller.test_transfer import LINK, METER, transfer_to

BONUS = "five_card_hand_bonus"


CAPPED = PA.replace(
    '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"',
    '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\nceiling = "1000.20"\n'
    'overflow = "divert:tcp-five-of-six"',
)
"""The example floor with a ceiling on tcp-progressive that the second $1 wager crosses."""


def unlinked(text: str) -> str:
    """``text`` with tcp-7 and tcp-8 (the $5 tables) no longer linked to tcp-progressive-5."""
    assert LINK in text
    return text.replace(LINK, "").replace(METER, METER + 'wager_unit = "5.00"\n')


def busy_floor() -> Scenario:
    """A floor whose log holds every event type at least once."""
    assert CAPPED != PA
    scenario = given(CAPPED)
    scenario.events(
        *locked_round(
            "tcp-1",
            "r1",
            wager(2, "ante", "1.00"),
            wager(2, "progressive", "1.00"),
            wager(3, "progressive", "1.00"),
            wager(5, BONUS, "1.00", on="dealer"),
            wager(6, BONUS, "1.00", on="dealer"),
        ),
        play(2, "1.00"),
        settled(
            dealer="Qh Jh Th",
            community="Ah Kh",
            seats={2: "As Ks Qs", 3: "7c 8c Td", 5: "2c 2d 3s", 6: "4c 4d 5s"},
            random_seat="dealer",
            magic_card="9c",
        ),
        validate("tcp-1/r1/progressive/seat2"),
        pay("tcp-1/r1/progressive/seat2"),
        *locked_round("tcp-1", "r2", wager(1, "progressive", "1.00")),
        activate(CAPPED.replace('primary_rate = "14%"', 'primary_rate = "15%"'), by="manager-2"),
        voided("misdeal"),
        correct("tcp-five-card", sub("1.00"), by="mgr", reason="sign"),
        activate(unlinked(CAPPED.replace('primary_rate = "14%"', 'primary_rate = "15%"'))),
        transfer_to("tcp-progressive"),
    )
    scenario.when(at(wager(1, "ante", "1.00"), table="tcp-404"))
    mystery = armed_floor(10_337)  # a mystery level armed, hit and revealed (its own floor)
    mystery.events(*one_wager("m1"), *one_wager("m2"))
    scenario.log.extend(mystery.log)
    return scenario


def test_the_busy_floor_covers_every_event_type() -> None:
    types = {type(event).TYPE for event in busy_floor().log}
    assert types == set(TABLE_EVENT_TYPES) | set(DERIVED_EVENT_TYPES)


def test_every_logged_event_round_trips_through_a_dict_and_json() -> None:
    for event in busy_floor().log:
        as_dict = event_to_dict(event)
        assert as_dict["type"] == type(event).TYPE
        assert as_dict["schema_version"] == SCHEMA_VERSION
        assert event_from_dict(as_dict) == event
        assert event_from_dict(json.loads(json.dumps(as_dict))) == event


def test_a_divided_jackpot_keeps_its_winners() -> None:
    hits = [e for e in busy_floor().log if isinstance(e, ProgressiveHit) and e.on == "dealer"]
    assert [len(h.winners) for h in hits] == [2]
    assert event_from_dict(json.loads(json.dumps(event_to_dict(hits[0])))) == hits[0]


@pytest.mark.parametrize(
    ("amount_cents", "discards"), [(None, ()), (500, ()), (500, ("2c", "7d", "9h"))]
)
def test_decisions_with_and_without_amounts_round_trip(
    amount_cents: int | None, discards: tuple[str, ...]
) -> None:
    # 671a.11(d)(1)(ii): a Lunar Poker draw carries its discards and its fee.
    event = DecisionMade(
        event_id="e4",
        table_id="lun-1",
        round_id="r1",
        seq=4,
        occurred_at="2026-01-01T00:00:00.000Z",
        seat=3,
        action="draw",
        amount_cents=amount_cents,
        discards=discards,
    )
    assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event


def test_a_rejection_keeps_its_raw_input() -> None:
    rejection = EventRejected(
        event_id="e9",
        table_id="tcp-1",
        event_type="wager_placed",
        reason="seat 9 does not exist",
        occurred_at="2026-01-01T00:00:00.000Z",
        raw='{"seat": 9}',
    )
    assert event_from_dict(json.loads(json.dumps(event_to_dict(rejection)))) == rejection


def test_an_unknown_type_is_refused() -> None:
    with pytest.raises(InvalidEvent, match="unknown event type 'jackpot_exploded'"):
        event_from_dict({"type": "jackpot_exploded", "schema_version": 1})


def test_the_type_is_a_stable_string_not_an_import_path() -> None:
    for event in busy_floor().log:
        kind = str(event_to_dict(event)["type"])
        assert kind.islower()
        assert "." not in kind


def test_a_derived_event_with_missing_fields_is_refused() -> None:
    with pytest.raises(InvalidEvent):
        event_from_dict({"type": "hit_paid", "schema_version": 1, "hit_id": "h"})
