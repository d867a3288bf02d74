"""Read routes: meters and hits from the state, awards, the log and dead letters from the log.

Meters and hits come from the in-memory state (immutable, so a read never sees half a batch).
Awards, log records and rejections are read from the durable log itself, each with its log
position, and paged by position: pass ``next_after`` back as ``after`` to continue. One request
scans at most `SCAN_BUDGET` records, so a page may come back short (even empty) before ``head``;
keep paging until ``next_after`` reaches ``head`` (the last position when the request began).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.model.events import EventRejected
from controller.model.money import format_cents
from controller.model.state import HitState
from controller.model.views import View, awards_view, meter_view, meters_view
from streams.codec import decode
from streams.http.common import READ_ROLES, ApiContext, BodyError, error, guarded, page
from streams.http.tokens import Principal
from streams.ports import EventLog, StoredRecord

SCAN_BUDGET: Final = 50_000
HIT_STATUSES: Final = ("pending_validation", "validated", "paid")
# The log stores compact, key-sorted JSON (`streams.codec.encode`), so a byte test finds
# the
# candidates cheaply; each candidate is still decoded and checked before it is shown.
_AWARD_TYPES: Final = tuple(
    f'"type":"{kind}"'.encode() for kind in ("progressive_hit", "fixed_awarded", "envy_awarded")
)
_REJECTED_TYPE: Final = b'"type":"event_rejected"'

Select = Callable[[StoredRecord], list[View]]
ReadHandler = Callable[[ApiContext, Request, Principal], Awaitable[Response]]


def routes(ctx: ApiContext) -> list[Route]:
    """The read routes (roles read_only and supervisor)."""

    def get(path: str, handler: ReadHandler) -> Route:
        return Route(path, guarded(ctx, READ_ROLES, partial(handler, ctx)), methods=["GET"])

    return [
        get("/v1/meters", meters),
        get("/v1/meters/{meter_id}", meter),
        get("/v1/hits", hits),
        get("/v1/awards", awards),
        get("/v1/log", log_records),
        get("/v1/rejections", rejections),
    ]


async def meters(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Every meter as signage shows it, and the log position the values reflect."""
    state, position = ctx.controller.partial_state(), ctx.controller.position
    return JSONResponse({"position": position, "meters": meters_view(state)})


async def meter(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """One meter, or 404 naming the configured meters."""
    meter_id = request.path_params["meter_id"]
    meters = ctx.controller.partial_state().meters
    state = meters.get(meter_id)
    if state is None:
        known = ", ".join(sorted(meters))
        return error(404, f"unknown meter {meter_id[:64]!r}; configured meters: {known}")
    return JSONResponse(meter_view(state))


def hit_view(hit: HitState) -> View:
    """A hit on its way from recognised to validated to paid (649a.11(c)(5)(iii)-(iv))."""
    return {
        "hit_id": hit.hit_id,
        "meter_id": hit.meter_id,
        "amount": format_cents(hit.amount_cents),
        "status": hit.status,
    }


async def hits(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Every progressive hit with its status, optionally only those with ``?status=``."""
    wanted = request.query_params.get("status")
    if wanted is not None and wanted not in HIT_STATUSES:
        raise BodyError(400, f"query: status must be one of {', '.join(HIT_STATUSES)}")
    listed = sorted(ctx.controller.partial_state().hits.values(), key=lambda h: h.hit_id)
    shown = [hit_view(h) for h in listed if wanted is None or h.status == wanted]
    return JSONResponse({"hits": shown})


async def awards(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Awards from the log; a split dealer-hand jackpot gives one row per player, never split
    across pages (so a page may hold a few more rows than ``limit``)."""
    return await _paged(ctx, request, "awards", _award_rows)


async def log_records(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Raw log records: position, ordering key and the stored event as JSON."""
    return await _paged(ctx, request, "records", _record_row)


async def rejections(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Dead letters: what was refused, why, and the input as received."""
    return await _paged(ctx, request, "rejections", _rejection_row)


async def _paged(ctx: ApiContext, request: Request, name: str, select: Select) -> Response:
    after, limit = page(request)
    rows, next_after, head = await run_in_threadpool(_scan, ctx.log, after, limit, select)
    return JSONResponse({name: rows, "next_after": next_after, "head": head})


def _scan(log: EventLog, after: int, limit: int, select: Select) -> tuple[list[View], int, int]:
    """Rows selected from records after ``after``: at least ``limit`` or up to the budget."""
    head = log.head()
    rows: list[View] = []
    last = after
    for scanned, record in enumerate(log.read(after=after), start=1):
        rows.extend(select(record))
        last = record.position
        if len(rows) >= limit or scanned >= SCAN_BUDGET or last >= head:
            break
    return rows, last, head


def _award_rows(record: StoredRecord) -> list[View]:
    if not any(kind in record.payload for kind in _AWARD_TYPES):
        return []
    return [{"position": record.position, **row} for row in awards_view([decode(record.payload)])]


def _record_row(record: StoredRecord) -> list[View]:
    event: object = json.loads(record.payload)
    row = {"position": record.position, "key": record.key, "event": event}
    return [{**row, "received_at": record.received_at}]


def _rejection_row(record: StoredRecord) -> list[View]:
    if _REJECTED_TYPE not in record.payload:
        return []
    event = decode(record.payload)
    if not isinstance(event, EventRejected):
        return []
    return [
        {
            "position": record.position,
            "event_id": event.event_id,
            "table_id": event.table_id,
            "event_type": event.event_type,
            "reason": event.reason,
            "raw": event.raw,
            "occurred_at": event.occurred_at,
            "received_at": record.received_at,
        }
    ]
