"""Proven equal: a hot line in the writer's own shape read as that shape
(``streams/native/src/hot_shape.rs``) against the generic reading, the door and the Python writer.

The shape (compact, keys sorted, the kind's fields in `kinds.rs`' order) is a fast way into
the same reading, never a wider one: for sorted compact lines damaged in every way a field can
be (left out, written twice, of another type or spelling, an unknown key, an odd byte in a
string, the version written or not), the decoder's struct is the door's and its payload the
Python writer's (`test_hot_decode._agrees`, `test_payload._agrees`), whichever reading took the
line. The plain lines of a floor must take the shape (else the fast way would be lost unseen),
and the two defaults the writer fills in (a wager's ``"on"``, empty ``"discards"``) must not.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.model.table_events import to_contract
from streams import native
from tests.controller.fast.differential import disturbed_floor
from tests.streams.native import test_hot_decode, test_payload

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")
HOT_KINDS = ("round_opened", "wager_placed", "wagers_locked", "decision")


def _raws() -> list[dict[str, Any]]:
    """The hot events of a simulated floor (30% forced hands, the devices' mistakes) as dicts."""
    raws: list[dict[str, Any]] = []
    for step in disturbed_floor(600, 41):
        try:
            raw = to_contract(step)  # type: ignore[arg-type]
        except (TypeError, AttributeError, KeyError, ValueError):
            continue  # not a table event (the floor's activation)
        if raw.get("type") in HOT_KINDS:
            raws.append(raw)
    return raws


RAWS = _raws()


def _sorted(raw: dict[str, Any], ascii_only: bool = True) -> bytes:
    text = json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=ascii_only)
    return text.encode("utf-8", "surrogatepass")


def _shaped(line: bytes) -> bool:
    assert BUILT is not None
    answer = BUILT.shaped(line)
    assert isinstance(answer, bool)
    return answer


def _both_agree(line: bytes) -> None:
    """The decoder and the payload writer each give the door's and the writer's answer."""
    test_hot_decode._agrees(line)
    test_payload._agrees(line)
    if _shaped(line):
        assert BUILT is not None
        assert BUILT.payload(line) is not None, line  # a shaped line is always written


def test_a_floor_s_plain_lines_take_the_shape() -> None:
    """Each plain line the door vouches for (not the devices' mistakes: a ``seq`` of -1...)."""
    vouched = 0
    for raw in RAWS:
        line = _sorted(raw)
        if test_payload._agrees(line):
            vouched += 1
            assert _shaped(line), line
            assert test_hot_decode._agrees(line), line
        else:
            assert test_hot_decode._agrees(line) is not True, line
    assert vouched > 400


def test_the_defaults_the_writer_fills_in_are_left_to_the_generic_reading() -> None:
    """A wager without ``"on"`` and an empty ``"discards"``: the generic reading answers."""
    for raw in RAWS:
        if raw["type"] == "wager_placed":
            line = _sorted({key: value for key, value in raw.items() if key != "on"})
        elif raw["type"] == "decision":
            line = _sorted(raw | {"discards": []})
        else:
            continue
        assert not _shaped(line), line
        assert test_hot_decode._agrees(line) is not False, line
        assert test_payload._agrees(line) is not False, line


def test_the_version_is_put_in_its_place() -> None:
    """Left out (inserted after ``round_id``), or written 1 or 2 (written over as 1): the bytes
    spelled out here, not read from either writer."""
    assert BUILT is not None
    head = b'{"event_id":"e:1","occurred_at":"2026-11-29T12:00:01Z","round_id":"r",'
    tail = b'"seq":12,"table_id":"t","type":"wagers_locked"}'
    expected = head + b'"schema_version":1,' + tail
    for version in (b"", b'"schema_version":1,', b'"schema_version":2,'):
        line = head + version + tail
        assert _shaped(line), line
        assert BUILT.payload(line) == expected, line
    decision = (
        b'{"action":"draw","amount":"5.00","discards":["AS","KD"],"event_id":"e:2",'
        b'"occurred_at":"2026-11-29T12:00:01Z","round_id":"r","seat":2,"seq":13,'
        b'"table_id":"t","type":"decision"}'
    )
    assert _shaped(decision)
    assert BUILT.payload(decision) == decision.replace(
        b'"round_id":"r",', b'"round_id":"r","schema_version":1,'
    )


ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    10**20,
    "",
    "x y",
    "é",
    "a\\b",
    'a"b',
    "\x7f",
    "\x1f",
    [],
    ["AS"],
    ["AS", "AS"],
    {"a": 1},
]


@st.composite
def damaged_sorted_lines(draw: st.DrawFn) -> bytes:
    """A floor's hot event written sorted and compact, then damaged (or not) in one way."""
    raw = dict(draw(st.sampled_from(RAWS)))
    keys = sorted(raw)
    hows = ["plain", "drop", "value", "extra", "twice", "text", "version", "key"]
    how = draw(st.sampled_from(hows))
    if how == "drop":
        del raw[draw(st.sampled_from(keys))]
    elif how == "value":
        raw[draw(st.sampled_from(keys))] = draw(st.sampled_from(ODD_VALUES))
    elif how == "extra":
        raw[draw(st.sampled_from(["aa", "note", "zz", "amount", "discards", "on", "game"]))] = draw(
            st.sampled_from(ODD_VALUES)
        )
    elif how == "key":  # a key misspelt in one byte (first, last or between): an unknown key
        key = draw(st.sampled_from(keys))
        at = draw(st.sampled_from([0, len(key) // 2, len(key) - 1]))
        raw[key[:at] + "X" + key[at + 1 :]] = raw.pop(key)
    elif how == "version":
        raw["schema_version"] = draw(st.sampled_from([1, 2, 0, "1", 1.0]))
    line = _sorted(raw, ascii_only=draw(st.booleans()))
    if how == "twice":  # a key written twice, where the writer would have it
        key = draw(st.sampled_from(keys)).encode()
        at = line.index(b'"' + key + b'":')
        end = line.index(b",", at) if b"," in line[at:] else len(line) - 1
        line = line[:end] + b"," + line[at:end] + line[end:]
    elif how == "text":  # one byte of the line replaced
        at = draw(st.integers(0, len(line) - 1))
        line = (
            line[:at]
            + draw(st.sampled_from([b" ", b"\\", b"\x00", b"\xff", b"}", b","]))
            + (line[at + 1 :])
        )
    return line


@settings(max_examples=1_500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_sorted_lines())
def test_a_damaged_sorted_line_gets_the_door_s_struct_and_the_writer_s_payload(
    line: bytes,
) -> None:
    _both_agree(line)


def test_the_shape_is_not_taken_with_spacing_or_another_order() -> None:
    rng = random.Random(43)
    for raw in rng.sample(RAWS, 50):
        spaced = json.dumps(raw, sort_keys=True, separators=(", ", ":")).encode()
        reordered = json.dumps(dict(sorted(raw.items(), reverse=True)), separators=(",", ":"))
        for line in (spaced, reordered.encode()):
            assert not _shaped(line), line
            _both_agree(line)
