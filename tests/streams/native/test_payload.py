"""Proven equal: the native payload of a vouched hot line (``streams/native/src/hot_line.rs``)
against the Python writer's (`streams.embedded.lines._struct_payload`, `streams.codec.encode`
of the line's table event).

For every line the door vouches for as a round opened, a wager, the lock or a decision, the
native writer gives the Python writer's bytes, or None (then the engine writes them in Python):
valid events in any key order, spacing and escaping, mutated and broken lines
(`tests.streams.door.test_fast_decode`'s strategies), lines of simulated floors with a share
written oddly (`tests.strategies_lines.ODD_LINES`). Lines the door does not vouch for are never
handed to it; it must still answer them without failing. It must answer (not None) every plain
ASCII line without an escape, so a writer that gave up on everything would not pass.
"""

from __future__ import annotations

import random
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streams import native
from streams.door.contract_structs import RoundStruct
from streams.door.fast_decode import try_decode_line
from streams.embedded.lines import _HOT, _struct_payload
from tests.controller.fast.differential import disturbed_floor
from tests.streams.door.test_fast_core import as_lines
from tests.streams.door.test_fast_decode import door_lines

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")


def _agrees(line: bytes) -> bool | None:
    """Whether the native writer answered a vouched hot line (its bytes then the Python
    writer's); None for a line the door does not vouch for as a hot kind."""
    assert BUILT is not None
    written = BUILT.payload(line)
    assert written is None or isinstance(written, bytes)
    struct = try_decode_line(line)
    entry = _HOT.get(type(struct))
    if entry is None:
        return None
    expected = _struct_payload(cast(RoundStruct, struct), entry[1])
    assert written is None or written == expected, (line, written, expected)
    return written is not None


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_native_payload_is_the_python_writer_s_for_any_vouched_line(
    data: st.DataObject,
) -> None:
    _, text = data.draw(door_lines(), label="line")
    line = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    answered = _agrees(line)
    if answered is not None and line.isascii() and b"\\" not in line:
        assert answered, line  # a plain vouched line is written natively


def test_the_native_payload_is_the_python_writer_s_on_a_simulated_floor() -> None:
    """Every line of a simulated floor (30% forced hands, the devices' mistakes), 30% of them
    written oddly (escapes, repeated keys, defaults written out, wrong types...)."""
    texts = as_lines(disturbed_floor(3_000, 31), random.Random(31), 0.3)
    answers = [_agrees(text) for text in texts if isinstance(text, bytes)]
    hot = [answer for answer in answers if answer is not None]
    assert len(hot) > 2_000
    assert all(hot)  # a vouched line has no escape, and the floor's spell their numbers plainly


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"wager_placed","seat":01,"event_id":"e","table_id":"t","round_id":"r",'
        b'"seq":1,"occurred_at":"2026-11-29T12:00:01Z","wager":"ante","amount":"5.00"}',
        b'{"type":"round_opened","seq":1e0,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z","game":"three_card_poker"}',
        b'{"type":"round_opened","seq":1,"seq":2,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z","game":"three_card_poker"}',
        b'{"type":"wagers_locked","seq":1,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z","extra":1}',
        b'{"type":"wagers_locked","seq":1,"event_id":"e","table_id":"t","round_id":"r"}',
        b'{"type":"wagers_locked","seq":true,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z"}',
        b'{"type":"round_settled","seq":1,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z"}',
        b'{"type":"wagers_locked","seq":1,"event_id":"\xc3\xa9","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z"}',
        b'{"type":"wagers_locked","seq":1,"event_id":"e\\u0041","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z"}',
        b'{"type":"wagers_locked","seq":1,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z"} x',
        b'{"type":"wagers_locked","seq":1,"event_id":"e","table_id":"t","round_id":"r",'
        b'"occurred_at":"2026-11-29T12:00:01Z"',
        b"",
        b"[]",
    ],
)
def test_the_native_writer_gives_up_on_what_it_cannot_copy(line: bytes) -> None:
    """A leading zero, an exponent, a repeated or unknown key, a missing field, a wrong type,
    another kind, a byte outside ASCII, an escape, trailing text, a truncated line, no object."""
    assert BUILT is not None
    assert BUILT.payload(line) is None


def test_the_native_writer_fills_what_the_writer_fills() -> None:
    """The version always 1 (written after ``round_id``), ``on`` "own" when left out, spacing
    dropped: the bytes spelled out here, not read from either writer."""
    assert BUILT is not None
    line = (
        b'{ "wager" : "ante", "type":"wager_placed","seat":3,"event_id":"e:1","table_id":"t",'
        b'"round_id":"r","seq":12,"occurred_at":"2026-11-29T12:00:01Z",'
        b'"schema_version":2,"amount":"5.00"}\n'
    )
    assert BUILT.payload(line) == (
        b'{"amount":"5.00","event_id":"e:1","occurred_at":"2026-11-29T12:00:01Z","on":"own",'
        b'"round_id":"r","schema_version":1,"seat":3,"seq":12,"table_id":"t",'
        b'"type":"wager_placed","wager":"ante"}'
    )
    assert BUILT.payload("not bytes") is None


@pytest.mark.parametrize("special", [b"\\", b"\x00", b"\x1f", b"\x7f", b"\x80", b"\xc3\xa9", b'"'])
def test_a_byte_the_writer_cannot_copy_is_seen_wherever_it_stands(special: bytes) -> None:
    """The string scan reads eight bytes at a time (`plain_run`): a byte it must stop at, at
    every position of a string of every length up to 24, and plain strings of those lengths."""
    assert BUILT is not None
    for size in range(1, 25):
        for at in range(size):
            plain = b"abcdefghijklmnopqrstuvwx"[:size]
            for text in (plain, plain[:at] + special + plain[at + 1 :]):
                line = (
                    b'{"type":"wagers_locked","seq":1,"event_id":"' + text + b'","table_id":"t",'
                    b'"round_id":"r","occurred_at":"2026-11-29T12:00:01Z"}'
                )
                written = BUILT.payload(line)
                if text == plain:
                    assert written is not None, line
                    assert text in written, line
                else:
                    assert written is None, line
