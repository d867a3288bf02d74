"""Proven equal: the native decoder of the hot lines (``streams/native/src/hot_decode.rs``)
against the door's decode (`streams.door.fast_core.decode_vouched`) and the Python payload.

For any line: the decoder answers None, or the door vouches for the line as the same kind and
the decoder's struct is the door's (``==``, and the same fields left out: `UNSET`, `OWN_UNSAID`
by identity) and its payload the Python writer's (`streams.embedded.lines._struct_payload`).
Lines: the door's strategies (valid events in any key order, spacing and escaping; mutated and
broken lines), plain valid hot lines with one field set to a value at the edge of what the
contract allows (instants, amounts, ids, numbers, literals, discards), and a simulated floor with
a share written oddly. It must answer every plain valid hot line, so a decoder that gave up on
everything would not pass.
"""

from __future__ import annotations

import json
import random
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from streams import native
from streams.door.contract_structs import (
    OWN_UNSAID,
    DecisionStruct,
    RoundHead,
    WagerPlacedStruct,
)
from streams.door.fast_core import decode_vouched
from streams.door.hot_lines import hot_decoder
from streams.embedded import lines as engine_lines
from streams.embedded import made
from streams.embedded.lines import _HOT, _struct_payload
from tests.controller.fast.differential import disturbed_floor
from tests.streams.door.test_fast_core import as_lines
from tests.streams.door.test_fast_decode import door_lines, events
from tests.streams.native.forced import made_with

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")
HOT_KINDS = ("round_opened", "wager_placed", "wagers_locked", "decision")


def _engine_decoder() -> native.HotHeads | None:
    return made.decoder(engine_lines._HOT)


#: the decoder as `streams.embedded.lines` makes it, and `streams.door.hot_lines.hot_decoder`
#: (``(struct, payload)``, `streams.scaleout`'s), from this build
DECODE = made_with(BUILT, _engine_decoder) if BUILT is not None else None
PAIRS = made_with(BUILT, hot_decoder) if BUILT is not None else None


def _agrees(line: bytes) -> bool | None:
    """Whether the decoder answered (then as the door would); None: the door does not vouch
    for the line as a hot kind (the decoder must then answer None)."""
    assert DECODE is not None
    decoded = DECODE(line)
    expected = decode_vouched(line)
    entry = _HOT.get(type(expected))
    if entry is None:
        assert decoded is None, (line, decoded)
        return None
    if decoded is None:
        return False
    struct, payload, event_id, table_id, occurred_at = decoded
    # the head the engine reads is the struct's own objects (`fast_heads`)
    assert event_id is struct.event_id, line
    assert table_id is struct.table_id, line
    assert occurred_at is struct.occurred_at, line
    assert PAIRS is not None
    assert PAIRS(line) == (struct, payload), line  # the decoder without the head (scaleout's)
    assert type(struct) is type(expected), line
    assert struct == expected, (line, struct, expected)
    assert isinstance(struct, RoundHead)
    assert isinstance(expected, RoundHead)
    assert (struct.schema_version is UNSET) is (expected.schema_version is UNSET), line
    if isinstance(expected, WagerPlacedStruct):
        assert (cast(WagerPlacedStruct, struct).on is OWN_UNSAID) is (expected.on is OWN_UNSAID)
    if isinstance(expected, DecisionStruct):
        said = cast(DecisionStruct, struct)
        assert (said.amount is UNSET) is (expected.amount is UNSET), line
        assert (said.discarded is UNSET) is (expected.discarded is UNSET), line
    assert payload == _struct_payload(expected, entry[1]), line
    return True


def _bytes(line: str | bytes) -> bytes:
    return line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")


@settings(max_examples=1_500, suppress_health_check=[HealthCheck.too_slow])
@given(door_lines())
def test_the_door_s_lines_get_the_door_s_struct_or_none(drawn: tuple[str, str | bytes]) -> None:
    kind, line = drawn
    answered = _agrees(_bytes(line))
    if kind == "valid" and answered is not None and _bytes(line).isascii():
        assert answered or b"\\" in _bytes(line), line  # plain and vouched: answered


# each field's values at the edge of the contract (valid and not)
EDGES: dict[str, list[Any]] = {
    "event_id": ["e", "e" * 128, "e" * 129, "", "a b", "~!", "é", "\x7f", 5],
    "table_id": ["t", "t" * 64, "t" * 65, "", "a.b_c-D9", "a/b", "a b", "é"],
    "round_id": ["r", "r" * 64, "r" * 65, "", "R-1.2_3", "r:1"],
    "occurred_at": [
        "2024-02-29T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2000-02-29T23:59:59.999999999Z",
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59+23:59",
        "2026-11-29T24:00:00Z",
        "2026-11-29T23:60:00Z",
        "2026-11-29T12:00:60Z",
        "2026-11-29T12:00:00.Z",
        "2026-11-29T12:00:00.1234567890Z",
        "2026-11-29T12:00:00+24:00",
        "2026-11-29T12:00:00+00:60",
        "2026-11-29T12:00:00-00:00",
        "2026-11-29T12:00:00z",
        "2026-11-29 12:00:00Z",
        "2026-13-01T12:00:00Z",
        "2026-04-31T12:00:00Z",
        "2026-11-29T12:00:00",
        "2026-11-29T12:00:00+0530",
        "2026-11-29T12:00:00.5+05:30",
        "2026-11-29T12:00Z",
        "20261129T120000Z",
        "2026-11-29T12:00:00.000000000000000000000Z",
        "2026-1-29T12:00:00Z",
        "٢٠٢٦-11-29T12:00:00Z",
    ],
    "seq": [0, 1, 2**53 - 1, 2**53, -1, 1.0, "1", True, None, 10**20],
    "schema_version": [1, 2, 0, 3, "1", 1.0],
    "game": ["three_card_poker", "four_card_prime", "Three_card_poker", "", 1],
    "seat": [1, 12, 0, 13, "1", 1.5],
    "wager": ["a", "a" * 40, "a" * 41, "ante_2", "Ante", "2ante", "", "a-b"],
    "amount": [
        "0.01",
        "0.10",
        "0.00",
        "0.1",
        "1.00",
        "999999999.99",
        "1000000000.00",
        "01.00",
        "1.000",
        "1",
        "-1.00",
        "1e2",
        "",
        100,
    ],
    "on": ["own", "dealer", "seat:1", "seat:12", "seat:13", "seat:0", "Own", "", None],
    "action": ["play", "draw", "buy_sixth_card", "stand", "", 1],
    "discards": [
        [],
        ["As"],
        ["As", "As"],
        ["As", "Kd", "2c", "10h", "Th"],
        ["As"] * 6,
        ["As", "Kd", "2c", "3c", "4c", "5c"],
        ["1s"],
        "As",
        [1],
    ],
}


@st.composite
def edged(draw: st.DrawFn) -> bytes:
    """A valid hot event as compact JSON, one of its fields (or one it may have) replaced by an
    edge value, or left out, or said twice."""
    event: dict[str, Any] = draw(events().filter(lambda e: e["type"] in HOT_KINDS))
    name = draw(st.sampled_from(sorted(EDGES)))
    how = draw(st.sampled_from(["set", "set", "set", "drop", "twice"]))
    if how == "drop":
        event.pop(name, None)
    elif name not in ("discards",) or event.get("action") == "draw" or draw(st.booleans()):
        event[name] = draw(st.sampled_from(EDGES[name]))
    text = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    if how == "twice" and name in event:
        text = text[:-1] + "," + json.dumps(name) + ":" + json.dumps(event[name]) + "}"
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=2_000, suppress_health_check=[HealthCheck.too_slow])
@given(edged())
def test_values_at_the_contract_s_edges_get_the_door_s_answer(line: bytes) -> None:
    _agrees(line)


@pytest.mark.parametrize("kind", HOT_KINDS)
def test_every_edge_value_of_every_hot_kind(kind: str) -> None:
    """Each edge value of each field on a plain line of each kind, spelled out (Hypothesis may
    not draw them all)."""
    base: dict[str, Any] = {
        "event_id": "e:1", "table_id": "t", "round_id": "r", "seq": 1,
        "occurred_at": "2026-11-29T12:00:00Z", "type": kind,
    }  # fmt: skip
    bodies: dict[str, dict[str, Any]] = {
        "round_opened": {"game": "three_card_poker"},
        "wager_placed": {"seat": 1, "wager": "ante", "amount": "5.00"},
        "wagers_locked": {},
        "decision": {"seat": 2, "action": "draw", "discards": ["As"]},
    }
    base |= bodies[kind]
    answered = 0
    for name, values in EDGES.items():
        for value in values:
            line = json.dumps(base | {name: value}, separators=(",", ":"), ensure_ascii=False)
            answered += bool(_agrees(line.encode()))
    assert _agrees(json.dumps(base).encode()) is True
    assert answered > 5


def test_a_simulated_floor_is_answered_as_the_door_answers_it() -> None:
    """Every line of a simulated floor (30% forced hands, the devices' mistakes), 30% of them
    written oddly (escapes, repeated keys, defaults written out, wrong types...); each plain
    hot line the door vouches for is answered."""
    texts = as_lines(disturbed_floor(3_000, 31), random.Random(31), 0.3)
    answers = [_agrees(text) for text in texts if isinstance(text, bytes)]
    hot = [answer for answer in answers if answer is not None]
    assert len(hot) > 2_000
    assert sum(hot) > 0.95 * len(hot)


def test_anything_but_bytes_and_an_overlong_line_are_left_to_the_door() -> None:
    assert DECODE is not None
    line = (
        b'{"type":"wagers_locked","seq":1,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z"}'
    )
    assert DECODE(line) is not None
    assert DECODE(line.decode()) is None  # type: ignore[arg-type]
    assert DECODE(bytearray(line)) is None  # type: ignore[arg-type]
    padded = line[:-1] + b" " * 70_000 + b"}"
    assert decode_vouched(padded) is None
    assert DECODE(padded) is None


def test_the_engine_decodes_natively_exactly_when_it_runs_the_extension() -> None:
    assert (engine_lines._DECODE is not None) is (native.load() is not None)
    # and walks a batch's common hot lines natively (``src/hot_walk.rs``) exactly then too
    assert (engine_lines._WALK is not None) is (native.load() is not None)


# texts that repeat on a floor and that the decoder keeps (``Kept`` in hot_decode.rs): near
# one another (one byte apart, a prefix of another, the same length), so a cache keyed or
# compared on less than the whole text would hand one for another
_KEPT_TEXTS = st.sampled_from(["t", "u", "tt", "t1", "1t", "T", "t-1", "t-10", "t.1", "t_1"])
_KEPT_AMOUNTS = st.sampled_from(["1.00", "10.00", "1.01", "0.10", "100.00", "5.00"])
_KEPT_WAGERS = st.sampled_from(["ante", "antf", "ant", "pair_plus", "progressive"])


def _wager_line(table: str, round_id: str, wager: str, amount: str, index: int) -> bytes:
    event = {
        "type": "wager_placed",
        "event_id": f"e{index}",
        "table_id": table,
        "round_id": round_id,
        "seq": index,
        "occurred_at": "2026-11-29T12:00:01Z",
        "seat": 1 + index % 12,
        "wager": wager,
        "amount": amount,
    }
    return json.dumps(event, separators=(",", ":")).encode()


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_KEPT_TEXTS, _KEPT_TEXTS, _KEPT_WAGERS, _KEPT_AMOUNTS), max_size=40))
def test_kept_texts_are_the_door_s_whatever_came_before(
    fields: list[tuple[str, str, str, str]],
) -> None:
    """Lines whose ids, wager names and amounts repeat and differ by a byte, one after another
    through one decoder (a fresh one and the engine's, whose strings earlier tests filled): each
    struct is still the door's; a repeated text is the same string object (kept)."""
    fresh = made_with(BUILT, _engine_decoder)
    seen: dict[str, str] = {}
    for index, (table, round_id, wager, amount) in enumerate(fields):
        line = _wager_line(table, round_id, wager, amount, index)
        assert _agrees(line) is True
        decoded = fresh(line)
        assert decoded is not None
        struct = cast(WagerPlacedStruct, decoded[0])
        assert struct == decode_vouched(line), line
        for text in (struct.table_id, struct.round_id, struct.wager, struct.amount):
            assert seen.setdefault(text, text) is text, text


def test_kept_texts_start_over_past_their_bound() -> None:
    """More distinct ids than the decoder keeps (4,096), then the first ones again: every struct
    is the door's (a bound that forgot a text must not hand another's)."""
    fresh = made_with(BUILT, _engine_decoder)
    lines = [_wager_line(f"t{n}", f"r{n % 7}", "ante", "5.00", n) for n in range(9_000)]
    for line in lines + lines[:300]:
        decoded = fresh(line)
        assert decoded is not None
        assert decoded[0] == decode_vouched(line), line
