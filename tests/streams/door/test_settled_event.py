"""A settlement's frozen event built from its struct by `fast_core.settled_event`, compiled and
without the dataclass's ``__init__``, is `fast_decode.round_event`'s: equal, field for field of
the same types, and the same bytes when encoded.

The engines decide a settlement line on this event (`streams.embedded.lines`, `run_lines`), so
the lines differential suites (``tests/streams/embedded/test_lines_differential.py``,
``test_fast_core.py``) hold it to the reference as well; here every shape the contract allows is
drawn: any seat keys in any order, a random seat as text or as a number, the optional cards,
the schema version, and (`door_lines`) lines mutated or broken, which the door refuses before any
event is built.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.model.table_events import RoundSettled
from streams.codec import encode
from streams.door import fast_core
from streams.door.contract_structs import CARD_TEXTS, RoundHead, RoundSettledStruct
from streams.door.fast_core import decode_vouched, settled_event, struct_event
from streams.door.fast_decode import round_event, table_event
from tests.streams.door.test_fast_decode import door_lines

_SEAT_KEYS = tuple(str(n) for n in range(1, 13))
_FIELDS = tuple(f.name for f in dataclasses.fields(RoundSettled))


def _same(struct: RoundSettledStruct) -> None:
    """``settled_event`` gives `round_event`'s event: equal, the same types, the same bytes."""
    ours, theirs = settled_event(struct), round_event(struct)
    assert type(ours) is RoundSettled
    assert ours == theirs, (ours, theirs)
    for name in _FIELDS:
        mine, reference = getattr(ours, name), getattr(theirs, name)
        assert type(mine) is type(reference), (name, mine, reference)
    assert [type(n) for n, _ in ours.seats] == [int] * len(ours.seats)
    assert all(type(hand) is tuple for _, hand in ours.seats)
    assert encode(ours) == encode(theirs)


@st.composite
def settlements(draw: st.DrawFn) -> dict[str, Any]:
    """A settlement's contract dict: seats in any order of any keys, the optional fields present
    or not, a random seat as ``"dealer"``, a key's text or a number."""
    cards = draw(st.permutations(CARD_TEXTS[:52]))
    keys = draw(st.lists(st.sampled_from(_SEAT_KEYS), unique=True, max_size=12))
    sizes = draw(st.lists(st.integers(1, 3), min_size=len(keys), max_size=len(keys)))
    taken, seats = 5, {}
    for key, size in zip(keys, sizes, strict=True):
        seats[key], taken = list(cards[taken : taken + size]), taken + size
    raw: dict[str, Any] = {
        "type": "round_settled",
        "event_id": draw(st.sampled_from(["e1", "tcp-2:26", "x/y/9"])),
        "table_id": "tcp-2",
        "round_id": "tcp-2-R000001",
        "seq": draw(st.integers(0, 2**53 - 1)),
        "occurred_at": "2026-11-29T12:01:57.853Z",
        "dealer": list(cards[: draw(st.integers(0, 3))]),
        "community": list(cards[3 : 3 + draw(st.integers(0, 2))]),
        "seats": seats,
    }
    optional = {
        "random_seat": st.sampled_from(["dealer", *_SEAT_KEYS]) | st.integers(1, 12),
        "magic_card": st.sampled_from(CARD_TEXTS),
        "bonus_card": st.sampled_from(CARD_TEXTS),
        "schema_version": st.sampled_from([1, 2]),
    }
    for name, values in optional.items():
        if draw(st.booleans()):
            raw[name] = draw(values)
    return raw


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(settlements(), st.randoms())
def test_a_settlement_s_event_is_the_reference_s(raw: dict[str, Any], rng: Any) -> None:
    items = list(raw.items())
    rng.shuffle(items)  # any key order of the line
    struct = decode_vouched(json.dumps(dict(items), separators=(",", ":")).encode())
    assert isinstance(struct, RoundSettledStruct)
    _same(struct)
    assert struct_event(struct) == round_event(struct)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(door_lines())
def test_any_line_the_door_vouches_for_gives_the_reference_s_event(drawn: Any) -> None:
    """Valid, mutated and broken lines: what the door vouches for (a mutated settlement is
    refused before an event is built) gives the same event both ways."""
    _, text = drawn
    line = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    struct = decode_vouched(line)
    if isinstance(struct, RoundSettledStruct):
        _same(struct)
    if isinstance(struct, RoundHead):
        assert struct_event(struct) == table_event(struct)
        assert encode(struct_event(struct)) == encode(round_event(struct))


def test_the_settlement_s_fields_are_the_event_s_in_its_order() -> None:
    """`settled_event` hands `_SETTLED` the fields in `RoundSettled`'s order (every field: none
    is left at a default)."""
    assert fast_core._SETTLED_FIELDS == _FIELDS
