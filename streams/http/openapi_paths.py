"""The paths of the OpenAPI document (`streams.http.openapi`) for the routes the embedded
controller's own modules serve: ingest, reads, reports, the operator's calls and the service
endpoints, with the building blocks they share (answers, errors, parameters). The pages,
playability and transfer modules describe their own paths.
"""

from __future__ import annotations

from typing import Final

from streams.http.common import DEFAULT_PAGE, MAX_PAGE, MAX_POSITION
from streams.http.openapi_schemas import Schema, query_param, ref

_WHY: Final[dict[int, str]] = {
    400: "The body or query cannot be read (reason given; an ingest body is dead-lettered)",
    401: "No bearer token, or one that is unknown or revoked",
    403: "The token's role may not call this",
    404: "No such meter, or no such route",
    408: "The client sent nothing for 10 s in the middle of its body: dropped (dead-lettered)",
    409: "Refused by the rules (recorded in the log with the reason; a retry gets it again)",
    422: "The Idempotency-Key was already used for a different request (recorded)",
    413: "The body is over the size limit, holds too many JSON values, or a batch holds over 5000 "
    "events (dead-lettered)",
    503: "The event log cannot be written right now; retry",
}
_OPEN: Final[list[dict[str, list[str]]]] = []  # no authentication


def _answer(description: str, schema: str) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": ref(schema)}}}


def _responses(ok: str, schema: str, *errors: int) -> Schema:
    out: Schema = {"200": _answer(ok, schema)}
    for status in errors:
        out[str(status)] = _answer(_WHY[status], "Error")
    return out


def _operation(op_id: str, summary: str, roles: str, responses: Schema) -> Schema:
    return {
        "operationId": op_id,
        "summary": summary,
        "description": f"Roles: {roles}.",
        "responses": responses,
    }


def _path(name: str, description: str) -> Schema:
    schema = {"type": "string", "minLength": 1}
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": schema,
        "description": description,
    }


_IDEMPOTENCY_KEY: Final = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": True,
    "schema": {"type": "string", "pattern": '^"?[!#-~]{1,255}"?$'},
    "description": (
        "Required on every state-changing call (IETF httpapi draft), e.g. a UUID: a retry with "
        "the same key and request gets the first answer (header Idempotent-Replayed: true) and "
        "is applied once, even after a restart; the same key with another request is 422."
    ),
}


_PAGE: Final = [
    query_param(
        "after",
        "log position to read after",
        {"type": "integer", "minimum": 0, "maximum": MAX_POSITION, "default": 0},
    ),
    query_param(
        "limit",
        "at most this many rows",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": DEFAULT_PAGE},
    ),
]


def _ingest_paths() -> Schema:
    post = _operation(
        "postEvents",
        'Post table events: one event, an array, or {"events": [...]} (at most 5000)',
        "table_device, supervisor",
        _responses(
            "One result per event, in order, and the counts",
            "IngestAnswer",
            400,
            401,
            403,
            408,
            413,
            503,
        ),
    )
    post["description"] += (
        " A table_device token bound to tables (jackpot token add --tables) has each item for"
        ' another table answered "rejected" with the reason and dead-lettered; the rest go on.'
    )
    example: Schema = {
        "event_id": "tcp-1:1",
        "type": "round_opened",
        "table_id": "tcp-1",
        "round_id": "R1",
    }
    example |= {"seq": 1, "occurred_at": "2026-11-29T16:00:00Z", "game": "three_card_poker"}
    post["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": ref("IngestBody"), "example": example}},
    }
    return {"/v1/events": {"post": post}}


def _read_paths() -> Schema:
    roles = "read_only, supervisor"
    hits = _operation(
        "listHits",
        "Progressive hits with their status",
        roles,
        _responses("The hits", "HitList", 400, 401, 403),
    )
    status = {"enum": ["pending_validation", "validated", "paid"]}
    hits["parameters"] = [query_param("status", "only hits with this status", status)]
    meter = _operation(
        "getMeter", "One meter", roles, _responses("The meter", "Meter", 401, 403, 404)
    )
    meter["parameters"] = [_path("meter_id", "a meter id from the floor configuration")]
    out: Schema = {
        "/v1/meters": {
            "get": _operation(
                "listMeters", "Every meter", roles, _responses("The meters", "MeterList", 401, 403)
            )
        },
        "/v1/meters/{meter_id}": {"get": meter},
        "/v1/hits": {"get": hits},
    }
    for path, op_id, summary, schema in (
        ("/v1/awards", "listAwards", "Awards from the log, with positions", "AwardPage"),
        ("/v1/log", "readLog", "Raw log records, with positions", "LogPage"),
        (
            "/v1/rejections",
            "listRejections",
            "Dead letters: refused input and why",
            "RejectionPage",
        ),
    ):
        operation = _operation(op_id, summary, roles, _responses("One page", schema, 400, 401, 403))
        operation["parameters"] = _PAGE
        out[path] = {"get": operation}
    return out


_REPORT_QUERY: Final = (
    ("gaming_day", "a gaming day, YYYY-MM-DD"),
    ("day_starts", "when the gaming day starts, local HH:MM (default 06:00)"),
    ("utc_offset", "the local offset, +HH:MM or -HH:MM (default +00:00)"),
    ("from", "period start, RFC 3339 (instead of a gaming day)"),
    ("to", "period end, RFC 3339"),
    ("after_position", "period by log position: after this one"),
    ("to_position", "period by log position: up to and including this one"),
    ("format", "json (default) or csv"),
)


def _report_paths() -> Schema:
    text: Schema = {"type": "string", "maxLength": 64}
    answer: Schema = {
        "description": "The report: JSON, or CSV rows with format=csv",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "text/csv": {"schema": {"type": "string"}},
        },
    }
    responses: Schema = {
        "200": answer,
        **{str(s): _answer(_WHY[s], "Error") for s in (400, 401, 403)},
    }
    operation = _operation(
        "reconcile",
        "Accounting reconciliation of every meter for a period, to the sub-unit",
        "read_only, supervisor",
        responses,
    )
    operation["parameters"] = [query_param(name, why, text) for name, why in _REPORT_QUERY]
    return {"/v1/reconciliation": {"get": operation}}


def _operator_paths() -> Schema:
    roles = "supervisor"
    correct = _operation(
        "correctMeter",
        "An authorised, reasoned correction of a meter and/or its reserve",
        roles,
        _responses(
            "The corrected meter", "CorrectionAnswer", 400, 401, 403, 404, 408, 409, 413, 422, 503
        ),
    )
    correct["parameters"] = [
        _path("meter_id", "a meter id from the floor configuration"),
        _IDEMPOTENCY_KEY,
    ]
    correct["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": ref("CorrectionRequest")}},
    }
    out: Schema = {"/v1/meters/{meter_id}/corrections": {"post": correct}}
    hit = _path("hit_id", 'a hit id like "tcp-1/R7/progressive/seat3" (slashes as is or %2F)')
    for action, summary in (
        ("validate", "Validate a recognised hit"),
        ("pay", "Pay a validated hit"),
    ):
        operation = _operation(
            f"{action}Hit",
            summary,
            roles,
            _responses("The hit", "HitAnswer", 400, 401, 403, 408, 409, 422, 503),
        )
        operation["parameters"] = [hit, _IDEMPOTENCY_KEY]
        out[f"/v1/hits/{{hit_id}}/{action}"] = {"post": operation}
    configure = _operation(
        "configure",
        "A new floor configuration (TOML): active at once, or scheduled for a safe point",
        roles,
        _responses("Active or scheduled", "ConfigAnswer", 400, 401, 403, 408, 409, 413, 422, 503),
    )
    configure["parameters"] = [_IDEMPOTENCY_KEY]
    configure["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": ref("ConfigRequest")}},
    }
    out["/v1/config"] = {"post": configure}
    return out


def _service_paths() -> Schema:
    health = _operation("health", "The process is alive", "none", _responses("Alive", "Health"))
    ready = _operation(
        "ready", "The log is open and the state restored", "none", _responses("Ready", "Ready")
    )
    ready["responses"]["503"] = _answer("Not ready (reason given)", "NotReady")
    metrics = _operation(
        "metrics",
        "Prometheus metrics (no authentication: serve on loopback or a private network)",
        "none",
        {
            "200": {
                "description": "Prometheus text format",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        },
    )
    document = _operation(
        "openapi",
        "This document",
        "none",
        {
            "200": {
                "description": "OpenAPI 3.1",
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        },
    )
    out: Schema = {}
    for path, operation in (
        ("/healthz", health),
        ("/readyz", ready),
        ("/metrics", metrics),
        ("/openapi.json", document),
    ):
        operation["security"] = _OPEN
        out[path] = {"get": operation}
    return out


def api_paths() -> Schema:
    """Every path this module describes."""
    return {
        **_ingest_paths(),
        **_read_paths(),
        **_report_paths(),
        **_operator_paths(),
        **_service_paths(),
    }


def error_responses(*errors: int) -> Schema:
    """A 200 with no body schema of its own and the given errors, for paths described elsewhere."""
    return _responses("", "Error", *errors)
