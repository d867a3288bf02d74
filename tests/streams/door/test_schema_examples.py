"""The contract file: a sound 2020-12 schema, documented, and its examples say what they claim.

Invalid examples are checked twice: with a plain draft 2020-12 validator (what a device author in
another language sees: keyword and instance path) and with our door (the operator's message). Both
contract files are checked: version 1, and version 2 (version 1 plus ``heartbeat``); an example is
checked against the version it says (``"schema_version": 2``, or a heartbeat), else version 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from controller.model.errors import InvalidEvent
from streams.door.validation import (
    SCHEMA_DIR,
    SCHEMA_PATH,
    SCHEMA_V2_PATH,
    is_version_2,
    validate_table_event,
)

EXAMPLES = SCHEMA_DIR / "examples"
VALID = sorted(EXAMPLES.glob("*.valid.json"))
INVALID = sorted(EXAMPLES.glob("*.invalid.json"))
EVENT_TYPES = (
    "round_opened",
    "wager_placed",
    "wagers_locked",
    "decision",
    "round_settled",
    "round_voided",
)
EVENT_TYPES_V2 = (*EVENT_TYPES, "heartbeat")


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


SCHEMA = load(SCHEMA_PATH)
SCHEMA_V2 = load(SCHEMA_V2_PATH)
PLAIN = Draft202012Validator(SCHEMA)
PLAIN_V2 = Draft202012Validator(SCHEMA_V2)
BOTH = pytest.mark.parametrize(
    ("schema", "kinds"), [(SCHEMA, EVENT_TYPES), (SCHEMA_V2, EVENT_TYPES_V2)], ids=["v1", "v2"]
)


def plain_for(event: Any) -> Draft202012Validator:
    """The plain validator of the version the event says it is (as the door picks it)."""
    return PLAIN_V2 if isinstance(event, dict) and is_version_2(event) else PLAIN


def schemas_with_properties(node: object) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and node.get("type") == "object":
            yield node
        for child in node.values():
            yield from schemas_with_properties(child)
    elif isinstance(node, list):
        for child in node:
            yield from schemas_with_properties(child)


def described(schema: dict[str, Any], contract: dict[str, Any]) -> bool:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        schema = contract["$defs"][ref.removeprefix("#/$defs/")] | schema
    return bool(schema.get("description"))


@pytest.mark.parametrize(("schema", "version"), [(SCHEMA, 1), (SCHEMA_V2, 2)], ids=["v1", "v2"])
def test_the_schema_is_a_valid_draft_2020_12_schema_with_its_id(
    schema: dict[str, Any], version: int
) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://schemas.table-jackpot.example/table-event.v{version}.json"
    assert schema["title"]
    assert schema["$defs"]["schema_version"]["const"] == version


@BOTH
def test_every_event_type_is_a_closed_object_and_every_property_is_described(
    schema: dict[str, Any], kinds: tuple[str, ...]
) -> None:
    objects = list(schemas_with_properties(schema["$defs"]))
    assert {obj["properties"]["type"]["const"] for obj in objects} == set(kinds)
    assert schema["$defs"]["event_type"]["enum"] == list(kinds)
    for obj in objects:
        assert obj["additionalProperties"] is False, obj["title"]
        undescribed = [
            name for name, sub in obj["properties"].items() if not described(sub, schema)
        ]
        assert not undescribed, f"{obj['title']}: {undescribed}"


def test_version_2_is_version_1_plus_the_heartbeat_and_a_required_version() -> None:
    """Every version 1 kind means the same in version 2; only the version number is required."""
    v1, v2 = SCHEMA["$defs"], SCHEMA_V2["$defs"]
    assert set(v2) == set(v1) | {"heartbeat"}
    for name, definition in v1.items():
        if name in ("event_type", "schema_version"):
            continue
        if name in EVENT_TYPES:
            assert v2[name]["required"] == [*definition["required"], "schema_version"], name
            assert v2[name] | {"required": definition["required"]} == definition, name
        else:
            assert v2[name] == definition, name
    heartbeat = v2["heartbeat"]
    assert set(heartbeat["properties"]) == set(heartbeat["required"])
    assert set(heartbeat["required"]) == {
        "event_id", "type", "table_id", "occurred_at", "schema_version"
    }  # fmt: skip
    assert SCHEMA_V2["allOf"][:-1] == SCHEMA["allOf"]


@BOTH
def test_every_string_has_a_max_length(schema: dict[str, Any], kinds: tuple[str, ...]) -> None:
    def strings(node: object) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if node.get("type") == "string":
                yield node
            for child in node.values():
                yield from strings(child)
        elif isinstance(node, list):
            for child in node:
                yield from strings(child)

    for node in strings(schema["$defs"]):
        assert "maxLength" in node or "enum" in node or "const" in node, node


def test_every_event_type_has_a_valid_example_in_each_version() -> None:
    examples = [load(path) for path in VALID]
    assert {e["type"] for e in examples if not is_version_2(e)} == set(EVENT_TYPES)
    assert {e["type"] for e in examples if is_version_2(e)} <= set(EVENT_TYPES_V2)
    assert {"heartbeat", "wagers_locked"} <= {e["type"] for e in examples if is_version_2(e)}


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_examples_pass_a_plain_validator_and_the_door(path: Path) -> None:
    event = load(path)
    assert list(plain_for(event).iter_errors(event)) == []
    result = validate_table_event(event)
    assert result["schema_version"] == event.get("schema_version", 1)
    assert {key: result[key] for key in event} == event
    if not is_version_2(event):  # a version 1 event is a version 2 event once it says so
        assert list(PLAIN_V2.iter_errors(event | {"schema_version": 2})) == []


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_examples_fail_with_the_stated_keyword_and_message(path: Path) -> None:
    example = load(path)
    expect = example["expect"]
    found = {
        (e.validator, e.json_path)
        for e in plain_for(example["event"]).iter_errors(example["event"])
    }
    pointer = "$" + "".join(
        f"[{part}]" if part.isdigit() else f".{part}"
        for part in expect["instance_path"].split("/")[1:]
    )
    assert (expect["keyword"], pointer) in found
    with pytest.raises(InvalidEvent) as caught:
        validate_table_event(example["event"])
    assert str(caught.value).startswith(expect["message_starts"])


def test_the_readme_examples_are_valid_events() -> None:
    readme = (SCHEMA_DIR / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", readme, flags=re.DOTALL)
    types = {validate_table_event(json.loads(block))["type"] for block in blocks}
    assert types == set(EVENT_TYPES_V2)
