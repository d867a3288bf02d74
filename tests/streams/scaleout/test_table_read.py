"""The round processor's door (`streams.scaleout.table_read.read_event`) against the door's own
`decode_event`: the same event (field for field, same type) or the same refusal, for a floor's
lines with devices' mistakes and for any JSON object built from the contract's field names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.model.errors import InvalidEvent
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    WagerPlaced,
    WagersLocked,
)
from streams.door.fast_decode import decode_event
from streams.scaleout.table_read import read_event
from tests.streams.scaleout.procs_harness import disturbed

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
DEMO = (EXAMPLES / "pa-three-card-poker-demo.toml").read_text("utf-8")


def outcome(line: bytes) -> object:
    try:
        event = decode_event(line)
    except InvalidEvent as exc:
        return ("refused", str(exc))
    return (type(event), event)


def test_a_floors_lines_read_as_the_door_reads_them() -> None:
    kinds: set[type] = set()
    for _, line in disturbed(DEMO, 2_000, 99, 0.3):
        expected = outcome(line)
        try:
            got: object = read_event(line)
        except InvalidEvent as exc:
            got = ("refused", str(exc))
        else:
            kinds.add(type(got))
            got = (type(got), got)
        assert got == expected, line
    # the built kinds; a settlement by `fast_core.settled_event` (issue 13, branch ``k13-s24``)
    assert kinds >= {RoundOpened, WagerPlaced, WagersLocked, DecisionMade, RoundSettled}


FIELDS = {
    "type": st.sampled_from(["round_opened", "wager_placed", "wagers_locked", "decision"]),
    "event_id": st.sampled_from(["e-1", "x" * 129, "é"]),
    "table_id": st.just("tcp-1"),
    "round_id": st.just("R1"),
    "seq": st.integers(-1, 3) | st.just(2.0),
    "occurred_at": st.sampled_from(["2026-12-01T09:00:00Z", "2026-02-30T09:00:00Z"]),
    "game": st.just("three_card_poker"),
    "seat": st.integers(0, 13),
    "wager": st.sampled_from(["ante", "pair_plus", "progressive"]),
    "amount": st.sampled_from(["1.00", "5", "0.001", "-1.00", "25.50"]),
    "on": st.sampled_from(["own", "dealer", "seat:2", "nobody"]),
    "action": st.sampled_from(["play", "fold", "raise"]),
    "discards": st.lists(st.sampled_from(["As", "Kd", "As"]), max_size=2),
    "schema_version": st.sampled_from([1, 2, 3]),
}


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({}, optional=FIELDS))
def test_any_object_of_the_contracts_fields_reads_as_the_door_reads_it(
    raw: dict[str, object],
) -> None:
    line = json.dumps(raw).encode()
    expected = outcome(line)
    try:
        got: object = read_event(line)
    except InvalidEvent as exc:
        got = ("refused", str(exc))
    else:
        got = (type(got), got)
    assert got == expected


@pytest.mark.parametrize("line", [b"not json", b"[1]", b"{}", b"\xff"])
def test_a_line_that_is_no_event_is_refused_in_the_doors_words(line: bytes) -> None:
    with pytest.raises(InvalidEvent) as refused:
        read_event(line)
    assert ("refused", str(refused.value)) == outcome(line)
