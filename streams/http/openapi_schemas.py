"""The component schemas of the OpenAPI document (`streams.http.openapi`).

The table-event contract (``schemas/table-event.v1.json``) is embedded here: the document as
``TableEvent`` and each of its ``$defs`` as ``TableEvent.<name>`` (version 2, which adds the
``heartbeat``, likewise as ``TableEventV2``), with its ``#/$defs/``
references rewritten to point there (``$id`` and ``$schema`` are dropped, so no resolver treats it
as a separate resource). Request schemas describe what is *answered 200*: the ingest body may hold
events that break the contract, because each event is answered on its own (status "rejected" with
the reason), so its items are documented as ``TableEvent`` without being constrained to it.
"""

from __future__ import annotations

import json
from typing import Any, Final

from streams.door.validation import SCHEMA_PATH, SCHEMA_V2_PATH
from streams.http.ingest import MAX_BATCH

Schema = dict[str, Any]
_DEFS_PREFIX: Final = "#/$defs/"
# Same meaning in ECMA-262 and Python: "(?![\s\S])" is the end of the string (a "$" would let
# Python match before a final newline).
MONEY_SIGNED: Final = r"^-?(0|[1-9][0-9]{0,11})\.[0-9]{2}(?![\s\S])"
MONEY: Final = r"^-?[0-9]+\.[0-9]{2}(?![\s\S])"


_STR: Final[Schema] = {"type": "string"}
_INT: Final[Schema] = {"type": "integer"}
_POSITION: Final[Schema] = {"type": "integer", "minimum": 0}
_COUNT: Final[Schema] = {"type": "integer", "minimum": 0}
_MONEY: Final[Schema] = {"type": "string", "pattern": MONEY}
_HIT_STATUS: Final[Schema] = {"enum": ["pending_validation", "validated", "paid"]}
#: The background full check (chain from the first record, whole refold; start-up walks only
#: the chain after its snapshot): `streams.embedded.integrity.CheckStatus`.
_FULL_CHECK: Final[Schema] = {
    "type": "object",
    "required": ["state", "position", "at", "reason"],
    "properties": {
        "state": {"enum": ["not_started", "running", "passed", "failed"]},
        "position": {
            "type": ["integer", "null"],
            "minimum": 0,
            "description": "passed (or running after a pass): the position checked up to; "
            "failed: the first position that broke",
        },
        "at": {"type": "string", "description": "when the state last changed (UTC)"},
        "reason": {"type": "string", "description": "why it failed ('' otherwise)"},
    },
}


def ref(name: str) -> Schema:
    """A reference to one of the component schemas."""
    return {"$ref": f"#/components/schemas/{name}"}


def query_param(name: str, description: str, schema: Schema | None = None) -> Schema:
    """An optional query parameter (a non-empty string unless `schema` says otherwise): one
    spelling for the API's paths and the pages' documentation."""
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema if schema is not None else {"type": "string", "minLength": 1},
        "description": description,
    }


def _rewrite(node: object, prefix: str) -> Any:
    if isinstance(node, list):
        return [_rewrite(item, prefix) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _rewrite(value, prefix) for key, value in node.items()}
    target = out.get("$ref")
    if isinstance(target, str) and target.startswith(_DEFS_PREFIX):
        out["$ref"] = f"#/components/schemas/{prefix}.{target.removeprefix(_DEFS_PREFIX)}"
    return out


def table_event_schemas() -> dict[str, Schema]:
    """The contracts as component schemas: ``TableEvent`` and ``TableEvent.<def>`` (version 1),
    ``TableEventV2`` and ``TableEventV2.<def>`` (version 2)."""
    out: dict[str, Schema] = {}
    for name, path in (("TableEvent", SCHEMA_PATH), ("TableEventV2", SCHEMA_V2_PATH)):
        contract: Schema = json.loads(path.read_text(encoding="utf-8"))
        defs: Schema = contract.pop("$defs")
        for key in ("$id", "$schema"):
            contract.pop(key, None)
        out[name] = _rewrite(contract, name)
        out.update({f"{name}.{part}": _rewrite(body, name) for part, body in defs.items()})
    return out


def _object(properties: Schema) -> Schema:
    """A response object: every property is always present."""
    return {"type": "object", "required": list(properties), "properties": properties}


def _array(item: str) -> Schema:
    return {"type": "array", "items": ref(item)}


def _page(name: str, item: str) -> Schema:
    return _object(
        {
            name: _array(item),
            "next_after": _POSITION | {"description": "pass back as after to continue"},
            "head": _POSITION | {"description": "the log's last position when the page was read"},
        }
    )


def component_schemas() -> dict[str, Schema]:
    """Every schema the paths refer to, and the embedded table-event contract."""
    return {
        "Error": _object({"error": {"type": "string", "description": "what went wrong"}}),
        **_view_schemas(),
        **_ingest_schemas(),
        **_operator_schemas(),
        "Health": _object({"status": {"const": "ok"}}),
        "Ready": _object(
            {"status": {"const": "ready"}, "position": _POSITION, "full_check": _FULL_CHECK}
        ),
        "NotReady": _object(
            {"status": {"const": "not_ready"}, "reason": _STR, "full_check": _FULL_CHECK}
        ),
        **table_event_schemas(),
    }


#: The rows of `controller.model.views` and `streams.http.read`, property by property.
_METER: Final[Schema] = {
    "meter_id": _STR,
    "amount": _MONEY,
    "reserve": _MONEY,
    "overflow": _MONEY,
    "contributed": _MONEY,
    "paid": _MONEY,
    "hits": _COUNT,
}
_AWARD: Final[Schema] = {
    "position": _POSITION,
    "table_id": _STR,
    "round_id": _STR,
    "seat": _INT,
    "wager": _STR,
    "on": {"type": "string", "description": '"own", "dealer" or "seat:N": whose hand won'},
    "kind": {"enum": ["progressive", "fixed", "envy"]},
    "hand": _STR,
    "amount": _MONEY,
    "meter_id": _STR,
}
_REJECTION: Final[Schema] = {
    "position": _POSITION,
    "event_id": _STR,
    "table_id": _STR,
    "event_type": _STR,
    "reason": _STR,
    "raw": {"type": "string", "description": "the input as received (truncated)"},
    "occurred_at": _STR,
    "received_at": {
        "type": "string",
        "description": "the controller's receive time, RFC 3339 UTC (empty: logged before kept)",
    },
}
_RECORD: Final[Schema] = {
    "position": _POSITION,
    "key": {"type": "string", "description": "ordering key: a meter, a table or floor"},
    "event": {"type": "object", "description": "the stored event; its type names its kind"},
    "received_at": {
        "type": "string",
        "description": "the controller's receive time, RFC 3339 UTC (empty: logged before kept)",
    },
}


def _view_schemas() -> dict[str, Schema]:
    """The shapes of `controller.model.views` and of the log pages."""
    return {
        "Meter": _object(_METER),
        "MeterList": _object({"position": _POSITION, "meters": _array("Meter")}),
        "Hit": _object({"hit_id": _STR, "meter_id": _STR, "amount": _MONEY, "status": _HIT_STATUS}),
        "HitList": _object({"hits": _array("Hit")}),
        "Award": _object(_AWARD),
        "AwardPage": _page("awards", "Award"),
        "LogRecord": _object(_RECORD),
        "LogPage": _page("records", "LogRecord"),
        "Rejection": _object(_REJECTION),
        "RejectionPage": _page("rejections", "Rejection"),
    }


def _ingest_schemas() -> dict[str, Schema]:
    """POST /v1/events: one event, an array of events, or {"events": [...]}."""
    batch = {"type": "array", "maxItems": MAX_BATCH, "items": ref("PostedEvent")}
    status = {"enum": ["accepted", "duplicate", "rejected"]}
    return {
        "PostedEvent": {
            "description": (
                "One table event, which should follow TableEvent (version 1) or TableEventV2; one "
                'that does not is answered in results with status "rejected" and the reason, and '
                "dead-lettered."
            ),
            "anyOf": [ref("TableEvent"), ref("TableEventV2"), {}],
        },
        "IngestBody": {
            "description": (
                "UTF-8 JSON, at most 4 MiB (by default) and 34 levels deep, no key repeated in "
                "an object, no NaN or Infinity; otherwise 400 or 413 and dead-lettered."
            ),
            "oneOf": [
                {
                    "allOf": [
                        ref("PostedEvent"),
                        {"type": "object", "not": {"required": ["events"]}},
                    ]
                },
                batch,
                {
                    "type": "object",
                    "required": ["events"],
                    "additionalProperties": False,
                    "properties": {"events": batch},
                },
            ],
        },
        "EventResult": _object(
            {
                "event_id": _STR,
                "status": status,
                "reason": {"type": "string", "description": "empty when accepted"},
            }
        ),
        "IngestAnswer": _object(
            {
                "results": _array("EventResult"),
                "accepted": _COUNT,
                "duplicates": _COUNT,
                "rejected": _COUNT,
                "playability": ref("BatchPlayability"),
            }
        ),
    }


def _operator_schemas() -> dict[str, Schema]:
    """Supervisor commands."""
    signed = {"type": "string", "pattern": MONEY_SIGNED}
    return {
        "CorrectionRequest": {
            "type": "object",
            "required": ["amount", "reason"],
            "additionalProperties": False,
            "properties": {
                "amount": signed | {"description": 'change of the meter, e.g. "-12.34"'},
                "reserve": signed | {"description": "change of the reserve", "default": "0.00"},
                "reason": {"type": "string", "minLength": 1, "maxLength": 500, "pattern": r"\S"},
            },
        },
        "CorrectionAnswer": _object({"command_id": _STR, "meter": ref("Meter")}),
        "HitAnswer": _object({"command_id": _STR, "hit": ref("Hit")}),
        "ConfigRequest": {
            "type": "object",
            "required": ["toml"],
            "additionalProperties": False,
            "properties": {
                "toml": {"type": "string", "minLength": 1, "pattern": r"\S"},
                "source": {"type": "string", "minLength": 1, "maxLength": 200},
                "replaces": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 2**31 - 1,
                    "description": "the version of the pending change this one replaces",
                },
            },
        },
        "ConfigAnswer": _object(
            {
                "command_id": _STR,
                "status": {"enum": ["active", "scheduled"]},
                "active_version": _COUNT,
                "waiting_for": {"type": "array", "items": _STR},
            }
        ),
    }
