"""GET /v1/playability, and the playability block of the ingest answer (`streams.liveness.tracker`).

A progressive is *unplayable* at a table whose feed has been silent longer than the configured limit
(``[communication] table_silence_limit_seconds``), or that has not been heard from since the
controller started; a meter is ``unplayable`` when that holds at every table linked to it, else
``in_play`` (with ``unplayable_at`` naming the tables where it is not). Reading this changes
nothing: an outage and its recovery never touch a meter.
"""

from __future__ import annotations

from functools import partial

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from streams.http.common import READ_ROLES, ApiContext, guarded
from streams.http.openapi_schemas import Schema, ref
from streams.http.tokens import Principal
from streams.liveness.tracker import playability

_STR: Schema = {"type": "string"}
_STRS: Schema = {"type": "array", "items": _STR}
_LIMIT: Schema = {"type": "integer", "minimum": 1, "description": "the silence limit in seconds"}


def routes(ctx: ApiContext) -> list[Route]:
    """The read route (roles read_only and supervisor)."""
    return [
        Route(
            "/v1/playability",
            guarded(ctx, READ_ROLES, partial(read_playability, ctx)),
            methods=["GET"],
        )
    ]


async def read_playability(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Every configured table's and meter's status (built off the event loop: 10,000 tables)."""
    controller = ctx.controller
    config = controller.partial_state().config  # no table decoded: only the configuration
    body = await run_in_threadpool(playability, config, controller.liveness)
    return JSONResponse(body)


def openapi_paths() -> Schema:
    """The path item of ``/v1/playability`` for `streams.http.openapi`."""
    error = {"content": {"application/json": {"schema": ref("Error")}}}
    operation = {
        "operationId": "getPlayability",
        "summary": "Which progressives are unplayable, where and why (silent or unknown tables)",
        "description": "Roles: read_only, supervisor.",
        "responses": {
            "200": {
                "description": "Every configured table and meter",
                "content": {"application/json": {"schema": ref("Playability")}},
            },
            "401": {"description": "No bearer token, or one that is unknown or revoked", **error},
            "403": {"description": "The token's role may not call this", **error},
        },
    }
    return {"/v1/playability": {"get": operation}}


def component_schemas() -> dict[str, Schema]:
    """``TableLiveness``, ``Playability`` and the ingest answer's ``BatchPlayability``."""
    table = {
        "type": "object",
        "required": ["status", "silent_seconds"],
        "properties": {
            "status": {"enum": ["playable", "unplayable"]},
            "silent_seconds": {
                "type": ["number", "null"],
                "description": "since last heard; null when not heard since the start",
            },
            "since": {**_STR, "description": "when it became unplayable (RFC 3339)"},
            "reason": {**_STR, "description": 'e.g. "table feed silent for 42 s (limit 30 s)"'},
            "meters": {**_STRS, "description": "the meters linked at the table (ingest answer)"},
        },
    }
    meter = {
        "type": "object",
        "required": ["status", "tables", "unplayable_at"],
        "properties": {
            "status": {"enum": ["in_play", "unplayable"]},
            "tables": _STRS,
            "unplayable_at": _STRS,
        },
    }
    down = {
        "type": "object",
        "required": ["tables", "at"],
        "properties": {
            "tables": {"type": "integer", "minimum": 1, "description": "how many tables"},
            "at": {**_STRS, "description": "the first ten of them, sorted"},
        },
    }

    def mapping(item: Schema) -> Schema:
        return {"type": "object", "additionalProperties": item}

    return {
        "TableLiveness": table,
        "Playability": {
            "type": "object",
            "required": ["limit_seconds", "tables", "meters"],
            "properties": {
                "limit_seconds": _LIMIT,
                "tables": mapping(ref("TableLiveness")),
                "meters": mapping(meter),
            },
        },
        "BatchPlayability": {
            "type": "object",
            "description": "the batch's configured tables, and the meters unplayable anywhere",
            "required": ["limit_seconds", "tables", "unplayable_meters", "unplayable_meters_total"],
            "properties": {
                "limit_seconds": _LIMIT,
                "tables": mapping(ref("TableLiveness")),
                "unplayable_meters": mapping(down),
                "unplayable_meters_total": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "how many meters are unplayable somewhere (20 are listed)",
                },
            },
        },
    }
