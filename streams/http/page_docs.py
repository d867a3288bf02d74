"""The OpenAPI description of the page routes (`streams.http.pages`), and the sign's limits."""

from __future__ import annotations

from typing import Final

from streams.http.openapi_schemas import query_param

#: query parameter -> (lowest, highest) accepted by /signage
SIGN_LIMITS: Final = {"stale_after_seconds": (1.0, 3600.0), "celebrate_seconds": (1.0, 300.0)}


def openapi_paths() -> dict[str, object]:
    """The OpenAPI 3.1 path items of these routes, for `streams.http.openapi` (the
    document-wide bearer scheme applies; ``token`` in the query is the alternative)."""
    token = query_param("token", "a read_only or supervisor token (EventSource sends no headers)")
    meters = query_param("meters", "comma-separated meter ids, in display order (default: all)")
    tables = query_param(
        "tables", "comma-separated table ids: their linked meters (not with meters)"
    )
    seconds = {"type": "number", "minimum": 1}
    sign = [
        query_param(name, f"seconds, {low:g} to {high:g}", {**seconds, "maximum": high})
        for name, (low, high) in SIGN_LIMITS.items()
    ]
    html_ok = {"description": "The page", "content": {"text/html": {"schema": {"type": "string"}}}}
    sse_ok = {
        "description": "Server-sent events; each data line is JSON",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
    return {
        "/signage": _get(
            "signage", "The linked-progressive sign", [token, meters, tables, *sign], html_ok
        ),
        "/surveillance": _get("surveillance", "Hits, awards, alerts, rejections", [token], html_ok),
        "/v1/stream/meters": _get(
            "streamMeters",
            "snapshot, then hit, meter, playability, heartbeat, fault",
            [token, meters, tables],
            sse_ok,
        ),
        "/v1/stream/activity": _get(
            "streamActivity", "snapshot, then activity, heartbeat, fault", [token], sse_ok
        ),
        "/v1/rounds/story": _get(
            "roundStory",
            "Every event of a recent round, with the controller's and the device's clocks",
            [token, query_param("table", "the table id"), query_param("round", "the round id")],
            {
                "description": "The round's events",
                "content": {"application/json": {"schema": {"type": "object"}}},
            },
        ),
    }


def _get(op_id: str, summary: str, params: list[dict[str, object]], ok: object) -> object:
    """A GET operation; its errors are HTML for a page, the JSON ``Error`` for a stream."""
    error: object = {"$ref": "#/components/schemas/Error"}
    kind = "application/json"
    if op_id in {"signage", "surveillance"}:
        error, kind = {"type": "string"}, "text/html"
    content = {"content": {kind: {"schema": error}}}
    responses = {
        "200": ok,
        "400": {"description": "A query parameter cannot be used (reason given)", **content},
        "401": {"description": "No token, or one that is unknown or revoked", **content},
        "403": {"description": "The token's role may not read this", **content},
    }
    if op_id == "roundStory":
        responses["404"] = {"description": "The round is not among those held", **content}
    operation = {
        "operationId": op_id,
        "summary": summary,
        "description": "Roles: read_only, supervisor.",
        "parameters": params,
        "responses": responses,
    }
    return {"get": operation}
