"""The door: `parse_json_line` and `validate_table_event` refuse with one readable line, or pass."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.model.errors import InvalidEvent, RuleViolation
from streams.door.json_lines import MAX_DEPTH, MAX_LINE_BYTES, parse_json_line
from streams.door.validation import SCHEMA_DIR, validate_table_event

EXAMPLES = {
    path.name.removesuffix(".valid.json"): json.loads(path.read_text(encoding="utf-8"))
    for path in sorted((SCHEMA_DIR / "examples").glob("*.valid.json"))
}
WAGER: dict[str, Any] = EXAMPLES["wager_placed"]
SETTLED: dict[str, Any] = EXAMPLES["round_settled"]
DECISION: dict[str, Any] = EXAMPLES["decision"]
FIELDS = sorted({key for event in EXAMPLES.values() for key in event} | {"on", "magic_card"})


def refusal(raw: object) -> str:
    with pytest.raises(InvalidEvent) as caught:
        validate_table_event(raw)
    message = str(caught.value)
    assert "\n" not in message
    assert isinstance(caught.value, RuleViolation)
    return message


def line_refusal(line: bytes | str) -> str:
    with pytest.raises(InvalidEvent) as caught:
        parse_json_line(line)
    assert "\n" not in str(caught.value)
    return str(caught.value)


# --- amounts, the field that costs money when wrong -----------------------------------------------


@pytest.mark.parametrize(
    "amount",
    ["0.00", "-1.00", "1.005", "1", "1e2", " 1.00", "1.00 ", "1.00\n", "01.00", "1.0", "+1.00",
     "1,00", "1000000000.00", "", "\uff11.00"],
)  # fmt: skip
def test_amounts_that_are_not_positive_whole_cents_are_refused(amount: str) -> None:
    message = refusal(WAGER | {"amount": amount})
    assert message.startswith("wager_placed.amount: ")
    assert 'is not a positive whole number of cents like "1.00"' in message


@pytest.mark.parametrize("amount", [1, 1.0, None, ["1.00"]])
def test_amounts_that_are_not_strings_are_refused_with_their_type(amount: object) -> None:
    assert refusal(WAGER | {"amount": amount}).startswith("wager_placed.amount: ")


@pytest.mark.parametrize("amount", ["0.01", "0.10", "1.00", "1000.00", "999999999.99"])
def test_positive_whole_cents_are_accepted(amount: str) -> None:
    assert validate_table_event(WAGER | {"amount": amount})["amount"] == amount


# --- fields: missing, unknown, wrong type, pattern, enum ------------------------------------------


def test_a_missing_field_is_named() -> None:
    event = {key: value for key, value in WAGER.items() if key != "wager"}
    assert refusal(event).startswith("wager_placed.wager: required field is missing; expected a")


def test_an_unknown_field_is_named_with_what_is_allowed() -> None:
    message = refusal(WAGER | {"tip": "1.00"})
    assert message.startswith("wager_placed.tip: unknown field; wager_placed has only event_id")


def test_a_field_of_another_type_is_unknown_here() -> None:
    assert refusal(EXAMPLES["wagers_locked"] | {"seat": 1}).startswith(
        "wagers_locked.seat: unknown field"
    )


def test_an_unknown_event_type_is_named() -> None:
    message = refusal(WAGER | {"type": "wager_withdrawn"})
    assert message.startswith("event.type: 'wager_withdrawn' is not one of the event types")


@pytest.mark.parametrize("raw", [None, [], "event", 3, True])
def test_a_non_object_is_refused(raw: object) -> None:
    assert refusal(raw).startswith("event: expected a JSON object, got ")


def test_non_string_keys_are_refused() -> None:
    assert refusal({1: "x", "type": "round_opened"}) == "event: every key must be a string"


@pytest.mark.parametrize(
    ("field", "value", "start"),
    [
        ("seat", 0, "wager_placed.seat: 0 is not a seat number"),
        ("seat", 13, "wager_placed.seat: 13 is not a seat number"),
        ("seat", True, "wager_placed.seat: True (a boolean) is not a seat number"),
        ("seat", 2.5, "wager_placed.seat: 2.5 (a number) is not a seat number"),
        ("wager", "Pair Plus", "wager_placed.wager: 'Pair Plus' is not a wager name"),
        ("on", "seat:0", "wager_placed.on: 'seat:0' is not \"own\""),
        ("on", "house", "wager_placed.on: 'house' is not \"own\""),
        ("seq", -1, "wager_placed.seq: -1 is not a sequence number"),
        ("seq", 2**53, "wager_placed.seq: 9007199254740992 is not a sequence number"),
        ("table_id", "TCP 07", "wager_placed.table_id: 'TCP 07' is not a table id"),
        ("round_id", "", "wager_placed.round_id: '' is not a round id"),
        ("event_id", "x" * 129, "wager_placed.event_id: 'xxx"),
        ("schema_version", 3, "wager_placed.schema_version: 3 is not schema version 1"),
    ],
)
def test_bad_values_name_the_field_and_the_expectation(
    field: str, value: object, start: str
) -> None:
    assert refusal(WAGER | {field: value}).startswith(start)


@pytest.mark.parametrize(
    "when",
    [
        "2026-02-30T16:00:00Z",  # no such day
        "2026-11-29T24:00:00Z",
        "2026-11-29T23:59:60Z",  # leap seconds are not accepted
        "2026-11-29T16:00:00",  # no offset
        "2026-11-29 16:00:00Z",
        "2026-11-29t16:00:00z",
        "2026-11-29T16:00:00+0100",
        "2026-11-29T16:00:00.Z",
        "2026-11-29T16:00:00Z\n",
        "29/11/2026",
    ],
)
def test_occurred_at_must_be_an_rfc3339_instant_with_offset(when: str) -> None:
    assert refusal(WAGER | {"occurred_at": when}).startswith("wager_placed.occurred_at: ")


@pytest.mark.parametrize(
    "when",
    ["2026-11-29T16:00:00Z", "2026-11-29T16:00:00.123456789+05:30", "2028-02-29T00:00:00-08:00"],
)
def test_rfc3339_instants_are_accepted(when: str) -> None:
    assert validate_table_event(WAGER | {"occurred_at": when})["occurred_at"] == when


# --- cards and round_settled ----------------------------------------------------------------------


@pytest.mark.parametrize("card", ["As", "Td", "10h", "2c", "KS", "AH", "Qd"])
def test_cards_are_accepted(card: str) -> None:
    assert validate_table_event(SETTLED | {"magic_card": card})["magic_card"] == card


@pytest.mark.parametrize("card", ["1x", "Zz", "1s", "11h", "as", "A", "As ", "As\n", "", "AsKs"])
def test_non_cards_are_refused(card: str) -> None:
    message = refusal(SETTLED | {"magic_card": card})
    assert message.startswith("round_settled.magic_card: ")
    assert "is not a card like" in message


@pytest.mark.parametrize("key", ["0", "13", "01", "1\n", "dealer", ""])
def test_seat_keys_are_1_to_12(key: str) -> None:
    message = refusal(SETTLED | {"seats": {key: ["As", "Ks", "Qs"]}})
    assert message.startswith("round_settled.seats: key ")


def test_a_card_inside_a_seat_hand_is_located() -> None:
    message = refusal(SETTLED | {"seats": {"3": ["As", "Kx", "Qs"]}})
    assert message.startswith("round_settled.seats.3[1]: 'Kx' is not a card")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dealer", ["As"] * 2),
        ("dealer", ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c"]),
        ("community", ["2c", "3c", "4c"]),
        ("seats", {"3": []}),
        ("seats", []),
    ],
)
def test_card_lists_are_bounded(field: str, value: object) -> None:
    assert refusal(SETTLED | {field: value}).startswith(f"round_settled.{field}")


@pytest.mark.parametrize("seat", ["dealer", "1", "12", 1, 12])
def test_random_seat_accepts_a_string_or_an_integer(seat: object) -> None:
    assert validate_table_event(SETTLED | {"random_seat": seat})["random_seat"] == seat


@pytest.mark.parametrize("seat", ["0", "13", 0, 13, True, "Dealer", None, "01", 7.0])
def test_random_seat_refuses_other_values(seat: object) -> None:
    message = refusal(SETTLED | {"random_seat": seat})
    assert message.startswith("round_settled.random_seat: ")
    assert '"dealer", a seat number "1" to "12" or an integer from 1 to 12' in message


def test_discards_belong_to_draw_only() -> None:
    message = refusal(DECISION | {"action": "fold"})
    assert message.startswith("decision.action: 'fold' is not \"draw\"")
    assert validate_table_event(DECISION | {"discards": []})["discards"] == []


# --- what comes back ------------------------------------------------------------------------------


def test_defaults_are_filled_without_touching_the_input() -> None:
    event = {key: value for key, value in WAGER.items() if key != "on"}
    result = validate_table_event(event)
    assert result["on"] == "own"
    assert result["schema_version"] == 1
    assert "on" not in event
    assert "schema_version" not in event


@pytest.mark.parametrize(
    ("field", "value"), [("seat", 1.0), ("seat", 3.0), ("seq", 4121.0), ("schema_version", 1.0)]
)
def test_integers_written_as_floats_are_refused(field: str, value: float) -> None:
    """Issue 15, finding 9: seat 1.0 was accepted as seat 1. The contract's integers are JSON
    numbers without a fraction, in every language's parser alike."""
    assert refusal(WAGER | {field: value}).startswith(f"wager_placed.{field}: ")


def test_on_is_only_filled_for_wagers() -> None:
    assert "on" not in validate_table_event(EXAMPLES["wagers_locked"])


# --- parse_json_line ------------------------------------------------------------------------------


def test_a_line_round_trips() -> None:
    line = json.dumps(WAGER).encode() + b"\n"
    assert validate_table_event(parse_json_line(line)) == WAGER | {"schema_version": 1}
    assert parse_json_line(line.decode()) == WAGER


@pytest.mark.parametrize(
    "line",
    [b"", b"   ", b"{", b'{"a": 1,}', b"{'a': 1}", b'{"a": 1} {"b": 2}', b"\xef\xbb\xbf{}"],
)
def test_malformed_json_is_refused(line: bytes) -> None:
    assert line_refusal(line).startswith("line: malformed JSON: ")


@pytest.mark.parametrize("line", [b"[]", b"1", b'"x"', b"null", b"true"])
def test_a_line_that_is_not_an_object_is_refused(line: bytes) -> None:
    assert line_refusal(line).startswith("line: expected a JSON object, got ")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_json_numbers_are_refused(constant: str) -> None:
    assert line_refusal('{"seq": ' + constant + "}").startswith(f"line: {constant} is not JSON")


def test_invalid_utf8_is_refused() -> None:
    assert line_refusal(b'{"a": "\xff"}').startswith("line: not UTF-8")


def test_a_repeated_key_is_refused() -> None:
    line = '{"amount": "1.00", "amount": "1000.00"}'
    assert line_refusal(line) == "line: key 'amount' appears more than once in one object"


def test_deep_nesting_is_refused_before_parsing() -> None:
    deep = '{"a": ' * MAX_DEPTH + "1" + "}" * MAX_DEPTH
    assert parse_json_line(deep)
    assert line_refusal("[" * (MAX_DEPTH + 1)).startswith("line: JSON nested deeper than 32")
    too_deep = '{"a":' + "[" * 60_000  # would hit the parser's recursion limit
    assert line_refusal(too_deep).startswith("line: JSON nested deeper than 32")


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = json.dumps({"reason": "[{" * 100 + '\\"[' + '\\\\"'})
    assert parse_json_line(text) == json.loads(text)


def test_an_escaped_quote_does_not_end_a_string_for_the_depth_guard() -> None:
    text = '{"a": "\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}'
    assert parse_json_line(text) == {"a": '"' + "[" * 37}


def test_a_huge_line_is_refused_before_parsing() -> None:
    assert parse_json_line(b" " * (MAX_LINE_BYTES - 2) + b"{}") == {}
    assert line_refusal(b" " * MAX_LINE_BYTES + b"{}").startswith("line: 65538 bytes is over")
    multibyte = '{"reason": "' + "\u00e9" * (MAX_LINE_BYTES // 2) + '"}'
    size = len(multibyte.encode())
    assert len(multibyte) < MAX_LINE_BYTES < size
    assert line_refusal(multibyte).startswith(f"line: {size} bytes is over the limit")


# --- properties: nothing but InvalidEvent ever escapes --------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["1.00", "As", "dealer", "seat:3", "2026-11-29T16:00:00Z", "3", "own"])
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
event_types = st.sampled_from([*(event["type"] for event in EXAMPLES.values()), "other"])


def accepted_or_refused(raw: object) -> None:
    message = ""
    try:
        result = validate_table_event(raw)
    except InvalidEvent as exc:
        message = str(exc)
    else:
        assert isinstance(raw, dict)
        assert result["type"] == raw["type"]
        return
    assert message
    assert "\n" not in message


@given(st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=10))
def test_any_json_object_is_accepted_or_refused_with_invalid_event(raw: dict[str, Any]) -> None:
    accepted_or_refused(raw)


@given(
    st.sampled_from(sorted(EXAMPLES)),
    st.sampled_from(FIELDS),
    json_values,
    st.booleans(),
    event_types,
)
def test_any_damaged_example_is_accepted_or_refused_with_invalid_event(
    name: str, field: str, value: object, delete: bool, kind: str
) -> None:
    raw: dict[str, object] = dict(EXAMPLES[name]) | {"type": kind}
    if delete:
        raw.pop(field, None)
    else:
        raw[field] = value
    accepted_or_refused(raw)


@given(json_values)
def test_any_json_value_is_accepted_or_refused_with_invalid_event(raw: object) -> None:
    accepted_or_refused(raw)


@given(st.text(max_size=200) | st.binary(max_size=200))
def test_any_line_parses_to_an_object_or_is_refused(line: str | bytes) -> None:
    message = ""
    try:
        value = parse_json_line(line)
    except InvalidEvent as exc:
        message = str(exc)
    else:
        assert isinstance(value, dict)
        return
    assert message
    assert "\n" not in message


@given(json_values)
def test_any_json_text_parses_or_is_refused(value: object) -> None:
    try:
        text = json.dumps(value)
    except ValueError:
        return
    try:
        parsed = parse_json_line(text)
    except InvalidEvent:
        return
    assert isinstance(parsed, dict)
