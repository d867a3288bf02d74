"""The contract file: a sound 2020-12 schema, documented, and its examples say what they claim.

Invalid examples are checked twice: with a plain draft 2020-12 validator (what a device author in
another language sees: keyword and instance path) and with our door (the operator's message).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from controller.errors import InvalidEvent
from streams.validation import SCHEMA_DIR, SCHEMA_PATH, validate_table_event

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


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


SCHEMA = load(SCHEMA_PATH)
PLAIN = Draft202012Validator(SCHEMA)


def schemas_with_properties(node: object) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and node.get("type") == "object":
            yield node
        for child in node.values():
            yield from schemas_with_properties(child)
    elif isinstance(node, list):
        for child in node:
            yield from schemas_with_properties(child)


def described(schema: dict[str, Any]) -> bool:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        schema = SCHEMA["$defs"][ref.removeprefix("#/$defs/")] | schema
    return bool(schema.get("description"))


def test_the_schema_is_a_valid_draft_2020_12_schema_with_its_id() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] == "https://schemas.table-jackpot.example/table-event.v1.json"
    assert SCHEMA["title"]


def test_every_event_type_is_a_closed_object_and_every_property_is_described() -> None:
    objects = list(schemas_with_properties(SCHEMA["$defs"]))
    assert {obj["properties"]["type"]["const"] for obj in objects} == set(EVENT_TYPES)
    for obj in objects:
        assert obj["additionalProperties"] is False, obj["title"]
        undescribed = [name for name, sub in obj["properties"].items() if not described(sub)]
        assert not undescribed, f"{obj['title']}: {undescribed}"


def test_every_string_has_a_max_length() -> None:
    def strings(node: object) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if node.get("type") == "string":
                yield node
            for child in node.values():
                yield from strings(child)
        elif isinstance(node, list):
            for child in node:
                yield from strings(child)

    for schema in strings(SCHEMA["$defs"]):
        assert "maxLength" in schema or "enum" in schema or "const" in schema, schema


def test_every_event_type_has_a_valid_example() -> None:
    assert {load(path)["type"] for path in VALID} == set(EVENT_TYPES)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_examples_pass_a_plain_validator_and_the_door(path: Path) -> None:
    event = load(path)
    assert list(PLAIN.iter_errors(event)) == []
    result = validate_table_event(event)
    assert result["schema_version"] == 1
    assert {key: result[key] for key in event} == event


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_examples_fail_with_the_stated_keyword_and_message(path: Path) -> None:
    example = load(path)
    expect = example["expect"]
    found = {(e.validator, e.json_path) for e in PLAIN.iter_errors(example["event"])}
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
    assert types == set(EVENT_TYPES)
