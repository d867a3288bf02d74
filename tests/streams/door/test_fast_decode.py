"""The fast door (`streams.door.fast_decode`) gives the jsonschema door's verdicts, and its
messages.

Differential tests: Hypothesis makes valid events of every kind, serialises them in many ways, and
mutates them (wrong types, missing and unknown fields, bad amounts, cards, seats and instants, huge
strings, repeated keys, escapes, broken JSON); for each line and each parsed object the fast and the
schema verdicts must be equal, and the fast path may *vouch* (skip the schema) only for events the
schema accepts. A second set checks the structs mirror the schema file constraint by constraint.
Events of both contract versions are made: version 1 (``schema_version`` 1 or absent), version 2
(``schema_version`` 2) and the version 2 ``heartbeat``.
"""

from __future__ import annotations

import functools
import json
import re
import string
from datetime import datetime
from itertools import product
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.model.errors import InvalidEvent
from streams.door.contract_structs import (
    CARD_TEXTS,
    PATTERNS_AFTER_DECODE,
    STRUCT_BY_TYPE,
    TARGET_TEXTS,
)
from streams.door.fast_decode import (
    decode_event,
    decode_line,
    to_event,
    try_decode_line,
    try_validate,
    validate_event,
    validate_to_event,
)
from streams.door.heartbeat import Heartbeat
from streams.door.json_lines import parse_json_line
from streams.door.validation import SCHEMA_DIR, SCHEMA_PATH, SCHEMA_V2_PATH, validate_table_event

Line = bytes | str
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
V1_DEFS: dict[str, Any] = SCHEMA["$defs"]
# Version 2 is version 1 plus the heartbeat: its $defs hold every kind.
DEFS: dict[str, Any] = json.loads(SCHEMA_V2_PATH.read_text(encoding="utf-8"))["$defs"]
KINDS: tuple[str, ...] = tuple(DEFS["event_type"]["enum"])
ROUND_KINDS: tuple[str, ...] = tuple(V1_DEFS["event_type"]["enum"])
SEAT_KEYS = tuple(str(seat) for seat in range(1, 13))
FIELDS = sorted({name for kind in KINDS for name in DEFS[kind]["properties"]})


def outcome(check: Any, value: object) -> tuple[bool, object]:
    """(True, result) or (False, the refusal's message)."""
    try:
        return True, check(value)
    except InvalidEvent as exc:
        return False, str(exc)


def schema_line(line: Line) -> dict[str, object]:
    return validate_table_event(parse_json_line(line))


def check_line(line: Line) -> tuple[bool, object]:
    """Fast and schema agree on ``line``; the schema's outcome."""
    expected = outcome(schema_line, line)
    assert outcome(decode_line, line) == expected
    if try_decode_line(line) is not None:
        assert expected[0], f"the fast path vouched for a line the schema refuses: {line!r}"
    if expected[0]:
        assert isinstance(expected[1], dict)
        assert decode_event(line) == to_event(expected[1])
    else:
        assert outcome(decode_event, line) == expected
    return expected


def check_raw(raw: object) -> tuple[bool, object]:
    """Fast and schema agree on an already parsed value; the schema's outcome."""
    expected = outcome(validate_table_event, raw)
    assert outcome(validate_event, raw) == expected
    if try_validate(raw) is not None:
        assert expected[0], f"the fast path vouched for a value the schema refuses: {raw!r}"
    if expected[0]:
        assert isinstance(expected[1], dict)
        assert validate_to_event(raw) == to_event(expected[1])
    else:
        assert outcome(validate_to_event, raw) == expected
    return expected


# --- valid events ---------------------------------------------------------------------------------

idents = st.from_regex(r"[A-Za-z0-9._-]{1,64}", fullmatch=True)
event_ids = st.from_regex(r"[!-~]{1,128}", fullmatch=True)
reasons = st.text(
    st.characters(
        codec="utf-8",
        exclude_categories=["Cc"],
        exclude_characters="\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
    ),
    min_size=1,
    max_size=500,
)
cards = st.sampled_from(CARD_TEXTS)
amounts = st.integers(1, 99_999_999_999).map(lambda cents: f"{cents // 100}.{cents % 100:02d}")


def hands(low: int, high: int) -> st.SearchStrategy[list[str]]:
    return st.lists(cards, min_size=low, max_size=high, unique=True)


@st.composite
def instants(draw: st.DrawFn) -> str:
    moment = draw(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
    digits = draw(st.integers(0, 9))
    fraction = f"{moment.microsecond:06d}{draw(st.integers(0, 999)):03d}"[:digits]
    offset = draw(st.sampled_from(["Z", "+00:00", "-08:00", "+05:30", "+23:59", "-00:00"]))
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:"
        f"{moment.minute:02d}:{moment.second:02d}{'.' if digits else ''}{fraction}{offset}"
    )


seats = st.integers(1, 12)
BODIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "round_opened": st.fixed_dictionaries(
        {"game": st.sampled_from(DEFS["round_opened"]["properties"]["game"]["enum"])}
    ),
    "wager_placed": st.fixed_dictionaries(
        {
            "seat": seats,
            "wager": st.from_regex(r"[a-z][a-z0-9_]{0,39}", fullmatch=True),
            "amount": amounts,
        },
        optional={"on": st.sampled_from(TARGET_TEXTS)},
    ),
    "wagers_locked": st.fixed_dictionaries({}),
    "decision": st.one_of(
        st.fixed_dictionaries(
            {
                "seat": seats,
                "action": st.sampled_from(
                    ["play", "fold", "raise", "bet", "buy_sixth_card", "draw"]
                ),
            },
            optional={"amount": amounts},
        ),
        st.fixed_dictionaries(
            {"seat": seats, "action": st.just("draw"), "discards": hands(0, 5)},
            optional={"amount": amounts},
        ),
    ),
    "round_settled": st.fixed_dictionaries(
        {
            "dealer": hands(0, 7),
            "community": hands(0, 2),
            "seats": st.dictionaries(st.sampled_from(SEAT_KEYS), hands(1, 7), max_size=12),
        },
        optional={
            "random_seat": st.one_of(st.sampled_from(("dealer", *SEAT_KEYS)), seats),
            "magic_card": cards,
            "bonus_card": cards,
        },
    ),
    "round_voided": st.fixed_dictionaries(
        {"reason": st.one_of(st.sampled_from(["misdeal", "deck short"]), reasons)}
    ),
    "heartbeat": st.fixed_dictionaries({}),
}


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(KINDS))
    head: dict[str, Any] = {"event_id": draw(event_ids), "type": kind, "table_id": draw(idents)}
    if kind == "heartbeat":  # version 2 only; no round, no seq
        return head | {"occurred_at": draw(instants()), "schema_version": 2}
    head |= {
        "round_id": draw(idents),
        "seq": draw(st.integers(0, 2**53 - 1)),
        "occurred_at": draw(instants()),
    }
    version = draw(st.sampled_from([None, 1, 2]))
    if version is not None:
        head["schema_version"] = version
    return head | draw(BODIES[kind])


@st.composite
def serialised(draw: st.DrawFn, event: dict[str, Any]) -> Line:
    """``event`` as one JSON line: any key order, spacing, escaping; bytes or text."""
    order = draw(st.permutations(list(event)))
    spacing = draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\t")]))
    text = json.dumps(
        {key: event[key] for key in order}, ensure_ascii=draw(st.booleans()), separators=spacing
    )
    return text.encode() if draw(st.booleans()) else text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_valid_events_agree_and_the_fast_path_vouches_for_them(data: st.DataObject) -> None:
    event = data.draw(events())
    line = data.draw(serialised(event))
    accepted, result = check_line(line)
    assert accepted, result
    assert check_raw(event)[0]
    assert try_validate(event) is not None
    has_escape = "\\" in (line.decode() if isinstance(line, bytes) else line)
    assert has_escape or try_decode_line(line) is not None


# --- invalid events: mutations of valid ones ------------------------------------------------------

ANY_BAD: list[object] = [
    None, True, False, 0, -1, 1.5, 3.0, 1e300, "", "x" * 70, [], {}, ["As"], {"1": ["As"]},
    2**53, 2**64, "1.00", "As", "dealer", "own", "seat:3", 12,
]  # fmt: skip
CARD_BAD = ["1h", "Ax", "AAs", "As\n", "", "10", "T", "11h", "as", "\u2660A", "10hh", "A s", 1]
BAD: dict[str, list[object]] = {
    "amount": [
        "0.00", "1.005", "01.00", "1", "1.0", "-1.00", "+1.00", "1e2", " 1.00", "1.00\n",
        "1000000000.00", "\uff11.00", ".50", "0.0", 1, 1.0,
    ],
    "seat": [0, 13, -1, 1.5, 2.0, True, "3", None, 12.0],
    "seq": [-1, 2**53, 1.0, 3.5, "1", True, 2**64, -0.0, 7.0],
    "table_id": ["", "a" * 65, "TCP 07", "tcp/1", "\u00e9", "a\n", 7],
    "round_id": ["", "r" * 65, "r 1", "r-1\n"],
    "event_id": ["", "x" * 129, "\u00e9" * 128, "x" * 128, 5, "a b", "\t", "~!", "id\n"],
    "occurred_at": [
        "2026-02-30T16:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T23:59:60Z",
        "2026-11-29T16:00:00", "2026-11-29t16:00:00z", "0000-01-01T00:00:00Z",
        "2026-11-29T16:00:00.1234567890Z", "2026-11-29T16:00:00+24:00", "2026-11-29T16:00:00Z\n",
        "2026-11-29T16:00:00.Z", "2026-13-01T00:00:00Z",
    ],
    "random_seat": [0, 13, "0", "13", "01", "Dealer", True, 2.0, None, "dealer ", 12, "12"],
    "schema_version": [2, 3, "1", "2", 1.0, 2.0, True, 0, None],
    "on": ["house", "seat:0", "seat:13", "seat:01", "dealer ", "OWN", "seat:7", "own\n"],
    "reason": ["", "r" * 501, "r" * 500, "\u00e9" * 500, "a\nb", "\u202e", "\x7f", "\x85", "t\tb"],
    "wager": ["Pair Plus", "1abc", "a" * 41, "_x", "", "ante"],
    "game": ["poker", "THREE_CARD_POKER", ""],
    "action": ["FOLD", "check", "", "draw"],
    "magic_card": CARD_BAD,
    "bonus_card": CARD_BAD,
    "type": ["wager_withdrawn", "", None, *KINDS],
}  # fmt: skip
LIST_FIELDS = ("dealer", "community", "discards")


def _damage_cards(draw: st.DrawFn, event: dict[str, Any]) -> None:
    """Damage one card list the event has (or add one it must not have)."""
    seats: Any = event.get("seats")
    hands_now = sorted(seats) if isinstance(seats, dict) else []
    present = [name for name in LIST_FIELDS if name in event] + [f"seats:{k}" for k in hands_now]
    target = draw(st.sampled_from(present or list(LIST_FIELDS)))
    holder, name = (seats, target[6:]) if target.startswith("seats:") else (event, target)
    now = list(holder.get(name) or draw(hands(1, 3)))
    change = draw(st.sampled_from(["repeat", "bad", "long", "nested", "not_list"]))
    holder[name] = {
        "repeat": [*now, now[0]],
        "bad": [*now[:-1], draw(st.sampled_from(CARD_BAD))],
        "long": list(CARD_TEXTS[:8]),
        "nested": [now],
        "not_list": now[0],
    }[change]
    if name == "discards" and draw(st.booleans()):
        event["action"] = draw(st.sampled_from(["fold", "play", "draw"]))


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    event = draw(events())
    operation = draw(st.sampled_from(["drop", "add", "replace", "cards", "seats"]))
    key = draw(st.sampled_from(sorted(event)))
    if operation == "drop":
        del event[key]
    elif operation == "add":
        name = draw(st.sampled_from([*FIELDS, "tip", "Type", "", "seat ", "\u00e9"]))
        event[name] = draw(st.sampled_from(ANY_BAD + BAD.get(name, [])))
    elif operation == "replace":
        event[key] = draw(st.sampled_from(BAD.get(key, ANY_BAD)))
    elif operation == "cards":
        _damage_cards(draw, event)
    else:
        seat_key = draw(st.sampled_from(["0", "13", "01", " 1", "dealer", "", "1", "12"]))
        hand = draw(st.sampled_from([[], list(CARD_TEXTS[:8]), ["As", "As"], ["As"], "As", [1]]))
        event["seats"] = draw(
            st.sampled_from([{seat_key: hand}, [], {"1": ["As"]} | {seat_key: hand}])
        )
    return event


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_events_get_the_schema_verdict_and_message(data: st.DataObject) -> None:
    event = data.draw(mutated())
    check_raw(event)
    check_line(data.draw(serialised(event)))


# --- invalid lines: what only the text shows ------------------------------------------------------


DAMAGES = ("repeat", "repeat_same", "control", "nan", "trailing", "bom", "truncated", "not_utf8",
           "deep", "huge", "escaped_key", "array")  # fmt: skip


@st.composite
def broken_lines(draw: st.DrawFn) -> Line:
    event = draw(events())
    text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    key = draw(st.sampled_from(sorted(event)))
    damage = draw(st.sampled_from(DAMAGES))
    body = text[1:]
    if damage == "repeat":
        return "{" + json.dumps(key) + ":" + json.dumps(draw(st.sampled_from(ANY_BAD))) + "," + body
    if damage == "repeat_same":
        return "{" + json.dumps(key) + ":" + json.dumps(event[key]) + "," + body
    if damage == "control":
        return text.replace('"' + str(event["event_id"])[:1], '"\t' + str(event["event_id"])[:1], 1)
    if damage == "nan":
        number = "seq" if "seq" in event else "schema_version"  # a heartbeat has no seq
        return text.replace(
            f'"{number}":{event[number]}',
            f'"{number}":{draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))}',
        )
    if damage == "trailing":
        return text + draw(st.sampled_from(["x", "}", ",", " \n", "{}"]))
    if damage == "bom":
        return "\ufeff" + text
    if damage == "truncated":
        return text[: draw(st.integers(0, len(text) - 1))]
    if damage == "not_utf8":
        return text.encode().replace(b'"type"', b'"typ\xff"', 1)
    if damage == "deep":
        return "{" + '"x":' + "[" * 40 + "]" * 40 + "," + body
    if damage == "huge":
        return text.replace('"type":', '"reason":"' + "r" * 70_000 + '","type":', 1)
    if damage == "escaped_key":
        return text.replace('"type"', '"\\u0074ype"', 1)
    return "[" + text + "]"


@st.composite
def door_lines(draw: st.DrawFn) -> tuple[str, Line]:
    """A line the door may be given, with its kind: "valid" (an event in any key order, spacing
    and escaping), "mutated" (a field dropped, added, replaced, cards damaged) or "broken"
    (`broken_lines`)."""
    kind = draw(st.sampled_from(["valid", "mutated", "broken"]))
    if kind == "broken":
        return kind, draw(broken_lines())
    event = draw(events() if kind == "valid" else mutated())
    return kind, draw(serialised(event))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken_lines(), st.booleans())
def test_broken_lines_get_the_schema_verdict_and_message(line: Line, as_bytes: bool) -> None:
    if as_bytes and isinstance(line, str):
        line = line.encode("utf-8", "surrogatepass")
    check_line(line)


@pytest.mark.parametrize(
    "path", sorted((SCHEMA_DIR / "examples").glob("*.json")), ids=lambda p: p.name
)
def test_the_contract_examples_agree(path: Any) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    event = document.get("event", document)
    check_raw(event)
    check_line(json.dumps(event))


SETTLED_TEXT = (
    '{"type":"round_settled","event_id":"e","table_id":"t","round_id":"r","seq":1,'
    '"occurred_at":"2026-11-29T16:02:10Z","dealer":["Kd"],"community":["Ah"],"seats":{"3":["As"]}'
)


@pytest.mark.parametrize(
    "line",
    [
        SETTLED_TEXT + "}",
        SETTLED_TEXT.replace('["Kd"]', '["Kd","Kd"]') + "}",
        SETTLED_TEXT.replace('["Ah"]', '["Ah","Ah"]') + "}",
        SETTLED_TEXT.replace('["As"]', '["As","Ks","As"]') + "}",
        SETTLED_TEXT.replace('["As"]', '["As","AS"]') + "}",  # equal cards, different strings
        SETTLED_TEXT + ',"magic_card":"As","bonus_card":"As"}',  # the schema lets these repeat
        SETTLED_TEXT.replace("round_settled", "decision").replace(
            '"dealer":["Kd"],"community":["Ah"],"seats":{"3":["As"]}', '"seat":1,"action":"draw"'
        )
        + ',"discards":["2c","3c","2c"]}',
    ],
)
def test_repeated_cards_get_the_schema_verdict(line: str) -> None:
    check_line(line)
    check_raw(json.loads(line))


@pytest.mark.parametrize(
    "raw",
    [
        {
            "type": "round_settled",
            "event_id": "e",
            "table_id": "t",
            "round_id": "r",
            "seq": 1,
            "occurred_at": "2026-11-29T16:02:10Z",
            "dealer": ("As",),
            "community": [],
            "seats": {},
        },
        {
            "type": "decision",
            "event_id": "e",
            "table_id": "t",
            "round_id": "r",
            "seq": 1,
            "occurred_at": "2026-11-29T16:02:10Z",
            "seat": 1,
            "action": "draw",
            "discards": {"As"},
        },
        {
            "type": "wagers_locked",
            "event_id": "e",
            "table_id": "t",
            "round_id": "r",
            "seq": 1,
            "occurred_at": "2026-11-29T16:02:10Z",
            1: "x",
        },
        {
            "type": "wagers_locked",
            "event_id": "e",
            "table_id": "t",
            "round_id": "r",
            "seq": float("nan"),
            "occurred_at": "2026-11-29T16:02:10Z",
        },
        ["not", "an", "object"],
        None,
    ],
)
def test_python_values_json_never_makes_are_left_to_the_schema(raw: object) -> None:
    assert try_validate(raw) is None
    check_raw(raw)


# --- the structs mirror the schema file -----------------------------------------------------------


def _schema_node(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    return (
        node
        if ref is None
        else DEFS[ref.removeprefix("#/$defs/")] | {k: v for k, v in node.items() if k != "$ref"}
    )


@functools.cache
def _literal_language(pattern: str, width: int) -> frozenset[str]:
    """Every ASCII string up to ``width`` characters the pattern matches (patterns of small finite
    languages only)."""
    compiled = re.compile(pattern.removesuffix("$") + r"\Z")
    alphabet = string.printable
    return frozenset(
        "".join(chars)
        for size in range(1, width + 1)
        for chars in product(alphabet, repeat=size)
        if compiled.match("".join(chars))
    )


def _same_constraint(schema: dict[str, Any], info: msgspec.inspect.Type, where: str) -> None:
    schema = _schema_node(schema)
    if isinstance(info, msgspec.inspect.UnionType):  # msgspec.inspect leaves UNSET out
        options = schema["anyOf"]
        assert len(options) == len(info.types), where
        for option, typ in zip(options, info.types, strict=True):
            _same_constraint(option, typ, where)
        return
    if isinstance(info, msgspec.inspect.LiteralType):
        values = set(info.values)
        if "enum" in schema or "const" in schema:
            assert values == set(schema.get("enum", [schema.get("const")])), where
        elif schema.get("maxLength", 99) <= 3:
            assert values == _literal_language(schema["pattern"], schema["maxLength"]), where
        else:  # wager_target: every literal matches, and what the pattern allows is a literal
            compiled = re.compile(schema["pattern"].removesuffix("$") + r"\Z")
            assert all(compiled.match(value) for value in values), where
            assert values == {"own", "dealer"} | {f"seat:{n}" for n in range(1, 13)}, where
        return
    if isinstance(info, msgspec.inspect.StrType):
        assert schema["type"] == "string", where
        pattern = schema.get("pattern")
        expected = None if pattern is None else pattern.removesuffix("$") + r"\Z"
        # a field's own pattern, or (where it repeats from event to event) checked after decoding
        after = PATTERNS_AFTER_DECODE.get(where.rsplit(".", maxsplit=1)[-1])
        assert info.pattern == (None if after else expected), where
        assert after in (None, expected), where
        assert (info.min_length, info.max_length) == (
            schema.get("minLength"),
            schema.get("maxLength"),
        ), where
    elif isinstance(info, msgspec.inspect.IntType):
        assert schema["type"] == "integer", where
        assert (info.ge, info.le) == (schema.get("minimum"), schema.get("maximum")), where
    elif isinstance(info, msgspec.inspect.ListType):
        assert schema["type"] == "array", where
        assert schema.get("uniqueItems"), where  # checked after decoding: _after_decode_checks
        assert (info.min_length, info.max_length) == (
            schema.get("minItems"),
            schema.get("maxItems"),
        ), where
        _same_constraint(schema["items"], info.item_type, where + "[]")
    elif isinstance(info, msgspec.inspect.DictType):
        assert schema["type"] == "object", where
        assert info.max_length == schema.get("maxProperties"), where
        _same_constraint(schema["propertyNames"], info.key_type, where + " key")
        _same_constraint(schema["additionalProperties"], info.value_type, where + " value")
    else:  # pragma: no cover - a new kind of field needs a rule here
        pytest.fail(f"{where}: no rule to compare {info!r}")


@pytest.mark.parametrize("kind", KINDS)
def test_each_struct_has_the_schema_fields_required_and_constraints(kind: str) -> None:
    """A version 1 kind's struct serves both versions: version 1's fields and required ones (a
    version is optional there), and a schema_version that is either version's constant."""
    struct = STRUCT_BY_TYPE[kind]
    info = msgspec.inspect.type_info(struct)
    assert isinstance(info, msgspec.inspect.StructType)
    definition = V1_DEFS[kind] if kind in ROUND_KINDS else DEFS[kind]
    assert {f.encode_name for f in info.fields} | {"type"} == set(definition["properties"])
    assert {f.encode_name for f in info.fields if f.required} | {"type"} == set(
        definition["required"]
    )
    assert info.forbid_unknown_fields
    assert definition["additionalProperties"] is False
    for field in info.fields:
        where = f"{kind}.{field.encode_name}"
        if field.name == "schema_version" and kind in ROUND_KINDS:
            assert isinstance(field.type, msgspec.inspect.LiteralType), where
            versions = {V1_DEFS["schema_version"]["const"], DEFS["schema_version"]["const"]}
            assert set(field.type.values) == versions == {1, 2}, where
            assert "schema_version" in DEFS[kind]["required"], where
            continue
        _same_constraint(definition["properties"][field.encode_name], field.type, where)


HEARTBEAT = {
    "event_id": "hb-1",
    "type": "heartbeat",
    "table_id": "TCP-07",
    "occurred_at": "2026-11-29T16:03:10Z",
    "schema_version": 2,
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({}, ""),
        ({"schema_version": None}, "heartbeat.schema_version: required field is missing"),
        ({"schema_version": 1}, "heartbeat.schema_version: 1 is not schema version 2"),
        ({"schema_version": 2.0}, "heartbeat.schema_version: 2.0"),
        ({"seq": 3}, "heartbeat.seq: unknown field; heartbeat has only event_id, type"),
        ({"round_id": "r-1"}, "heartbeat.round_id: unknown field"),
        ({"table_id": "TCP 07"}, "heartbeat.table_id: 'TCP 07' is not a table id"),
        ({"occurred_at": "2026-02-30T16:00:00Z"}, "heartbeat.occurred_at: '2026-02-30T16:00:00Z'"),
        ({"event_id": None}, "heartbeat.event_id: required field is missing"),
    ],
)
def test_a_heartbeat_gets_the_same_verdict_and_reason_from_both_doors(
    change: dict[str, object], message: str
) -> None:
    raw = {k: v for k, v in (HEARTBEAT | change).items() if v is not None}
    accepted, result = check_raw(raw)
    assert check_line(json.dumps(raw)) == (accepted, result)
    assert accepted == (message == "")
    if accepted:
        assert validate_to_event(raw) == Heartbeat(
            event_id="hb-1", table_id="TCP-07", occurred_at="2026-11-29T16:03:10Z"
        )
        assert result == raw | {"schema_version": 2}
    else:
        assert str(result).startswith(message), result


def test_the_fast_path_vouches_for_a_plain_heartbeat_and_a_version_2_round_event() -> None:
    assert try_decode_line(json.dumps(HEARTBEAT)) is not None
    locked = {
        "event_id": "e",
        "type": "wagers_locked",
        "table_id": "t",
        "round_id": "r",
        "seq": 1,
        "occurred_at": "2026-11-29T16:02:10Z",
        "schema_version": 2,
    }
    assert try_decode_line(json.dumps(locked)) is not None
    assert decode_line(json.dumps(locked)) == locked
