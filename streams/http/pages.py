"""Signage and surveillance pages, and the live streams (server-sent events) that feed them.

Routes (all for the roles ``read_only`` and ``supervisor``)::

    GET /signage              the linked-progressive sign (HTML): ?meters=a,b picks and orders
                              the meters, ?tables=tcp-1 shows a table's own meters;
                              ?stale_after_seconds=30 and ?celebrate_seconds=10
    GET /surveillance         hits (pending validation first), Envy Bonuses, dealer-hand splits,
                              fixed awards, alerts and rejected events (HTML)
    GET /v1/stream/meters     SSE: ``snapshot``, then ``hit``, ``meter``, ``playability``,
                              ``heartbeat``, ``fault``
    GET /v1/stream/activity   SSE: ``snapshot``, then ``activity``, ``heartbeat``, ``fault``
    GET /v1/rounds/story      ?table=T&round=R: every event of a recent round, both clocks (JSON)

Authentication: signs are display screens on the casino LAN, and a browser's EventSource cannot
send an Authorization header, so every route also takes the token as ``?token=`` (the header still
works). Give each screen its own ``read_only`` token (``jackpot token add NAME read_only``): it can
read but change nothing, and it can be revoked alone. A token in a URL is written to access logs
and browser history, so ``?token=`` takes a ``read_only`` token only (403 for any other role;
those may still send the Authorization header).

Streams: a stream quiet for ``heartbeat_seconds`` sends a heartbeat, so a page can tell a quiet
floor from a dead feed; while the feed's source is lost (Redis, on the Kafka engine) it sends a
``fault`` instead and the page shows its stale fault at once. Each stream ends after
``stream_seconds`` with a ``retry:`` hint: EventSource reconnects within a second and gets a new
snapshot. Why: on SIGTERM uvicorn waits for open responses, so an endless stream would keep
``jackpot serve`` from stopping; this way a stop waits at most ``stream_seconds``.

Playability (loss of communication with a table) changes with time, not with events: each running
stream asks the feed to `LiveFeed.tick` at least every ``heartbeat_seconds``, which sends signs a
``playability`` message (each meter in play or not, and where not) and surveillance its alerts.
"""

from __future__ import annotations

import asyncio
import html
import json
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streams.http.common import READ_ROLES, ApiContext, Gatekeeper, authorize, error
from streams.http.page_docs import SIGN_LIMITS, openapi_paths
from streams.http.tokens import Principal, Role
from streams.live.feed import LiveFeed, Signal, Topic, sse

__all__ = ["SIGN_LIMITS", "StreamSettings", "openapi_paths", "page_routes", "routes"]

STATIC: Final = Path(__file__).resolve().parent / "static"
PAGE_HEADERS: Final = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",  # the URL holds the token
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}
STREAM_HEADERS: Final = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


@dataclass(frozen=True, slots=True)
class StreamSettings:
    """How often a quiet stream sends a heartbeat, how long a stream lives, the retry hint."""

    heartbeat_seconds: float = 2.0
    stream_seconds: float = 15.0
    retry_ms: int = 1_000


DEFAULT_SETTINGS: Final = StreamSettings()


class QueryError(Exception):
    """A query parameter the page or stream cannot use; the message says which and why."""


def routes(
    ctx: ApiContext, feed: LiveFeed | None = None, settings: StreamSettings = DEFAULT_SETTINGS
) -> list[Route]:
    """The four routes over ``feed`` (by default a new one attached to ``ctx.controller``)."""
    live = feed if feed is not None else LiveFeed.attach(ctx.controller)
    return page_routes(ctx, live, settings)


def page_routes(
    ctx: Gatekeeper, live: LiveFeed, settings: StreamSettings = DEFAULT_SETTINGS
) -> list[Route]:
    """The four routes over ``live``, whatever feeds it (the embedded controller, or Redis on
    the Kafka engine: `streams.http.kafka_pages`)."""

    async def signage(request: Request) -> Response:
        return _page(ctx, live, request, "signage.html")

    async def surveillance(request: Request) -> Response:
        return _page(ctx, live, request, "surveillance.html")

    async def meters(request: Request) -> Response:
        return _stream(ctx, live, request, "meters", settings)

    async def activity(request: Request) -> Response:
        return _stream(ctx, live, request, "activity", settings)

    async def story(request: Request) -> Response:
        return _story(ctx, live, request)

    return [
        Route("/signage", signage, methods=["GET"]),
        Route("/surveillance", surveillance, methods=["GET"]),
        Route("/v1/stream/meters", meters, methods=["GET"]),
        Route("/v1/stream/activity", activity, methods=["GET"]),
        Route("/v1/rounds/story", story, methods=["GET"]),
    ]


@cache
def page_html(name: str) -> str:
    """A page's HTML (read once; the files are self-contained: no CDN, no build step)."""
    return (STATIC / name).read_text(encoding="utf-8")


def caller(ctx: Gatekeeper, request: Request, roles: frozenset[Role]) -> Principal | Response:
    """The caller by ``?token=``, else by the Authorization header; or the 401/403 answer."""
    token = request.query_params.get("token")
    if token is None and "authorization" not in request.headers:
        ctx.sensor.auth_failed("missing")
        return error(401, "missing token: add ?token=<a read_only token> to the URL")
    if token is None:
        return authorize(ctx, request, roles)
    principal = ctx.tokens.authenticate(token.strip())
    if principal is None:
        ctx.sensor.auth_failed("invalid")
        return error(401, "unknown or revoked token in ?token=; ask for a read_only token")
    if principal.role not in roles:
        ctx.sensor.auth_failed("forbidden")
        allowed = ", ".join(sorted(roles))
        return error(403, f"role {principal.role} may not read {request.url.path} ({allowed})")
    if principal.role != "read_only":  # a URL ends up in logs, histories and photos of screens
        ctx.sensor.auth_failed("token_in_url")
        return error(
            403,
            f"a {principal.role} token may not be put in a URL (?token=): use a read_only "
            "token for a screen, or send this one in the Authorization header",
        )
    return principal


def meters_query(live: LiveFeed, request: Request) -> list[str] | None:
    """``?meters=a,b`` as ids, or the meters of ``?tables=t1,t2`` (None when neither);
    QueryError for an unknown meter or table, or both given."""
    text = request.query_params.get("meters")
    if "tables" in request.query_params:
        if text is not None:
            msg = "query: give meters or tables, not both"
            raise QueryError(msg)
        return tables_query(live, request.query_params["tables"])
    if text is None:
        return None
    wanted = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    known = live.meter_ids()
    unknown = [meter_id for meter_id in wanted if meter_id not in known]
    if unknown or not wanted:
        listed = ", ".join(sorted(known)) or "none yet"
        msg = f"query: meters must name configured meters ({listed}); got {text[:200]!r}"
        raise QueryError(msg)
    return wanted


def tables_query(live: LiveFeed, text: str) -> list[str]:
    """The meters linked to the comma-separated tables in ``text``; QueryError for an unknown
    table or a table with no linked meter."""
    wanted = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    known = live.table_ids()
    unknown = [table for table in wanted if table not in known]
    meters = live.meters_of_tables(wanted)
    if unknown or not meters:
        listed = ", ".join(sorted(known)[:20]) or "none yet"
        msg = (
            f"query: tables must name configured tables with meters ({listed}); got {text[:200]!r}"
        )
        raise QueryError(msg)
    return meters


def sign_query(request: Request) -> None:
    """QueryError unless each sign setting present is a number in its range."""
    for name, (low, high) in SIGN_LIMITS.items():
        text = request.query_params.get(name)
        if text is None:
            continue
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not low <= value <= high:  # NaN fails too
            msg = f"query: {name} must be a number of seconds from {low:g} to {high:g}"
            raise QueryError(msg)


def _page(ctx: Gatekeeper, live: LiveFeed, request: Request, name: str) -> Response:
    principal = caller(ctx, request, READ_ROLES)
    if isinstance(principal, Response):
        reason = json.loads(bytes(principal.body)).get("error", "refused")
        return _html_error(principal.status_code, str(reason))
    try:
        meters_query(live, request)
        sign_query(request)
    except QueryError as exc:
        return _html_error(400, str(exc))
    return HTMLResponse(page_html(name), headers=PAGE_HEADERS)


def _html_error(status: int, reason: str) -> HTMLResponse:
    body = (
        '<!doctype html><meta charset="utf-8"><title>Cannot open this page</title>'
        '<body style="background:#000;color:#fff;font:3vw sans-serif;padding:2em">'
        f"<h1>Cannot open this page</h1><p>{html.escape(reason)}</p>"
    )
    return HTMLResponse(body, status_code=status, headers=PAGE_HEADERS)


def _stream(
    ctx: Gatekeeper, live: LiveFeed, request: Request, topic: Topic, settings: StreamSettings
) -> Response:
    principal = caller(ctx, request, READ_ROLES)
    if isinstance(principal, Response):
        return principal
    try:
        meters = meters_query(live, request) if topic == "meters" else None
    except QueryError as exc:
        return error(400, str(exc))
    body = _events(live, topic, meters, settings)
    return StreamingResponse(body, media_type="text/event-stream", headers=STREAM_HEADERS)


def _story(ctx: Gatekeeper, live: LiveFeed, request: Request) -> Response:
    """A round's story as JSON; 404 when the round is not among those the feed holds."""
    principal = caller(ctx, request, READ_ROLES)
    if isinstance(principal, Response):
        return principal
    table, round_id = request.query_params.get("table", ""), request.query_params.get("round", "")
    if not table or not round_id:
        return error(400, "query: give table and round, e.g. ?table=tcp-1&round=R2")
    found = live.story(table, round_id)
    if found is None:
        return error(404, f"round {round_id!r} at {table!r} is not among the recent rounds held")
    return JSONResponse(found, headers={"Cache-Control": "no-store"})


async def _events(
    live: LiveFeed, topic: Topic, meters: list[str] | None, settings: StreamSettings
) -> AsyncIterator[str]:
    """Snapshot, then every change; a heartbeat (or a fault) when quiet; ends after a while."""
    async with live.listen(topic, meters) as client:
        yield f"retry: {settings.retry_ms}\n\n"
        yield sse("snapshot", client.snapshot)  # says whether the source is live
        loop = asyncio.get_running_loop()
        end = loop.time() + settings.stream_seconds
        while (left := end - loop.time()) > 0:
            live.tick()  # silence is noticed by time passing (at most every half second)
            message = await client.next(min(settings.heartbeat_seconds, left))
            if message is Signal.CLOSED:
                return
            if message is not Signal.TIMEOUT:
                yield message
            elif loop.time() < end:
                yield live.heartbeat() if live.source_ok else live.fault()
