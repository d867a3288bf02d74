"""The door for table events: parse one JSON line, check it against its version of the contract.

The contract is ``schemas/table-event.v1.json`` and ``table-event.v2.json`` (JSON Schema draft
2020-12), the files devices written in other languages integrate against; this module adds nothing
to them but readable messages. An event is checked against version 2 when it says
``"schema_version": 2`` or is a ``heartbeat`` (a kind only version 2 has, so a heartbeat that forgot
its version is told so); every other event against version 1, exactly as before version 2 existed.
The schemas are found by `schema_dir`: inside the package in an installed wheel, else the
repository's ``schemas/`` next to ``streams/`` (an editable install, a checkout).

Everything refused raises `controller.model.errors.InvalidEvent` with one line saying which field is
wrong and what was expected, e.g. ``wager_placed.amount: '1.005' is not a positive whole number of
cents like "1.00"``. That line is the dead-letter reason an operator reads, so the expectations are
the ``title`` of the failing schema (one source of truth, shown to device authors too).

Two places where Python would be laxer than the contract's ECMA-262 reading, tightened here:
``$`` in a pattern means the end of the string (Python's ``re`` also matches before a final
newline), and ``format: date-time`` is asserted with a local RFC 3339 check (jsonschema only checks
it when the optional ``rfc3339-validator`` package is installed, which we do not depend on).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, cast

from jsonschema import Draft202012Validator, FormatChecker, ValidationError
from jsonschema import validators as _validators
from jsonschema.protocols import Validator

from controller.model.errors import InvalidEvent
from streams.door.json_lines import SHOW, json_type


def schema_dir() -> Path:
    """Where the contracts are: inside the package in an installed wheel (``setup.py`` copies
    them there), else the checkout's top-level ``schemas/`` (an editable install, a clone)."""
    packaged = Path(__file__).resolve().parent / "schemas"
    if (packaged / "table-event.v1.json").is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "schemas"


SCHEMA_DIR: Final = schema_dir()
SCHEMA_PATH: Final = SCHEMA_DIR / "table-event.v1.json"
SCHEMA_V2_PATH: Final = SCHEMA_DIR / "table-event.v2.json"
SCHEMA_VERSION: Final = 1
HEARTBEAT: Final = "heartbeat"

_FIELD_NAME: Final = re.compile(r"[A-Za-z0-9_]{1,64}\Z")
_RFC3339: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})\Z"
)
_ANNOTATIONS: Final = frozenset({"title", "description", "default", "$comment"})
_KEYWORD_RANK: Final = {"type": 0, "required": 1, "additionalProperties": 2, "propertyNames": 2}


# --- the validator, built once ------------------------------------------------------------------


@lru_cache(maxsize=64)
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    # ECMA-262 `$` (not multiline) is the end of the string; Python's `$` also matches before a
    # final "\n", which would let "1.00\n" through. The schema's patterns end in `$`: use `\Z`.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _pattern(
    validator: Validator, pattern: str, instance: object, schema: object
) -> Iterator[ValidationError]:
    if isinstance(instance, str) and _ecma_regex(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _is_rfc3339(instance: object) -> bool:
    """RFC 3339 date-time with an offset and a real calendar instant (no Feb 30, no leap second)."""
    if not isinstance(instance, str):
        return True
    if _RFC3339.match(instance) is None:
        return False
    try:
        datetime.fromisoformat(instance.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _inline_refs(node: object, defs: dict[str, Any]) -> Any:
    """Replace each local ``{"$ref": "#/$defs/x", "description": ...}`` by a copy of ``x``.

    Same meaning (the contract's refs point at $defs with no cycles, and their siblings are only
    annotations), about 2.5 times faster to validate: jsonschema resolves a ``$ref`` on every use.
    """
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    rest = {key: _inline_refs(value, defs) for key, value in node.items() if key != "$ref"}
    if isinstance(ref, str) and ref.startswith("#/$defs/") and rest.keys() <= _ANNOTATIONS:
        return _inline_refs(defs[ref.removeprefix("#/$defs/")], defs) | rest
    return node if ref is not None else rest


def _is_whole(_checker: object, instance: object) -> bool:
    """JSON Schema's "integer", strictly: a Python int (not a bool, not a float like 1.0)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


def _build_validator(path: Path) -> Validator:
    schema = json.loads(path.read_text(encoding="utf-8"))
    # A broken contract file fails at import, not once per event.
    Draft202012Validator.check_schema(schema)
    formats = FormatChecker(formats=())
    formats.checks("date-time")(_is_rfc3339)
    extend = cast(Callable[..., type[Validator]], _validators.extend)
    # An integer is a JSON number written without a fraction: JSON Schema would count 1.0 as the
    # integer 1, so a seat "1.0" became seat 1 (issue 15); the contract's integers are strict.
    types = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_whole)
    strict = extend(Draft202012Validator, validators={"pattern": _pattern}, type_checker=types)
    return strict(_inline_refs(schema, schema["$defs"]), format_checker=formats)


_VALIDATOR: Final = _build_validator(SCHEMA_PATH)
_VALIDATOR_V2: Final = _build_validator(SCHEMA_V2_PATH)
_DEFS: Final[dict[str, Any]] = cast(dict[str, Any], _VALIDATOR.schema)["$defs"]
_DEFS_V2: Final[dict[str, Any]] = cast(dict[str, Any], _VALIDATOR_V2.schema)["$defs"]
_EVENT_TYPES: Final = frozenset(_DEFS["event_type"]["enum"])
_EVENT_TYPES_V2: Final = frozenset(_DEFS_V2["event_type"]["enum"])


# --- validating one event ------------------------------------------------------------------------


def is_version_2(raw: dict[Any, object]) -> bool:
    """Whether ``raw`` is checked against version 2: it says so (``2``, or ``2.0``, which JSON
    Schema counts as the integer 2), or it is a heartbeat, a kind version 1 does not have."""
    version = raw.get("schema_version")
    said_2 = type(version) in (int, float) and version == 2  # not bool: True == 1 in Python
    return said_2 or raw.get("type") == HEARTBEAT


def validate_table_event(raw: object) -> dict[str, object]:
    """Check `raw` (a decoded JSON value) against its version of the contract; return the event.

    The result is a new dict with defaults filled (``schema_version`` 1; ``on`` "own" for a
    ``wager_placed``); integers are strict (a ``3.0`` is refused), so none needs converting.
    Nested values are shared with `raw`. Raises `InvalidEvent` with a one-line reason naming the
    field otherwise.
    """
    if not isinstance(raw, dict):
        msg = f"event: expected a JSON object, got {json_type(raw)}"
        raise InvalidEvent(msg)
    if not all(isinstance(key, str) for key in raw):
        msg = "event: every key must be a string"
        raise InvalidEvent(msg)
    v2 = is_version_2(raw)
    try:
        errors = list((_VALIDATOR_V2 if v2 else _VALIDATOR).iter_errors(raw))
    except RecursionError as exc:
        msg = "event: nested too deeply to be a table event"
        raise InvalidEvent(msg) from exc
    if errors:
        kind = raw.get("type")
        known = _EVENT_TYPES_V2 if v2 else _EVENT_TYPES
        prefix = kind if isinstance(kind, str) and kind in known else "event"
        worst = min(errors, key=lambda e: (len(e.path), _KEYWORD_RANK.get(str(e.validator), 3)))
        raise InvalidEvent(_describe(prefix, worst))
    event: dict[str, object] = dict(raw)
    event.setdefault("schema_version", SCHEMA_VERSION)
    if event["type"] == "wager_placed":
        event.setdefault("on", _DEFS["wager_target"]["default"])
    return event


def _describe(prefix: str, error: ValidationError) -> str:
    """One line: where, what was found, what was expected."""
    where = prefix + "".join(_step(part) for part in error.absolute_path)
    schema: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    keyword = error.validator
    instance: Any = error.instance
    properties: dict[str, object] = schema.get("properties", {})
    if keyword == "required":
        missing = next(name for name in schema["required"] if name not in instance)
        expected = _title(properties.get(missing))
        return f"{where}{_step(missing)}: required field is missing; expected {expected}"
    if keyword == "additionalProperties":
        extra = next(name for name in instance if name not in properties)
        allowed = ", ".join(properties)
        return f"{where}{_step(extra)}: unknown field; {prefix} has only {allowed}"
    if "propertyNames" in error.schema_path:
        return f"{where}: key {SHOW.repr(error.instance)} is not {_title(schema)}"
    shown = SHOW.repr(error.instance)
    if keyword == "type":
        shown = f"{shown} ({json_type(error.instance)})"
    title = schema.get("title")
    if isinstance(title, str):
        return f"{where}: {shown} is not {title}"
    return f"{where}: {error.message[:200]}"


def _step(part: str | int) -> str:
    if isinstance(part, int):
        return f"[{part}]"
    if _FIELD_NAME.match(part):
        return f".{part}"
    return f"[{SHOW.repr(part)}]"


def _title(schema: object) -> str:
    title = schema.get("title") if isinstance(schema, dict) else None
    return title if isinstance(title, str) else "a value"
