"""POST /v1/events: table devices post one event, an array of events, or ``{"events": [...]}``.

Every posted event gets an answer of its own (accepted, duplicate or rejected with the reason),
and the whole batch's accepted events are appended to the log in one atomic write. A body that
never becomes events (not UTF-8, not JSON, not an event or array, over the size or count limit) is
answered 400 or 413 and still dead-lettered with its first 64 KiB, so nothing a device sent is
lost without a record. Bad input is never a 5xx.

The answer also says whether the progressives at the batch's tables are in play (``playability``,
`streams.liveness.tracker.batch_playability`): each configured table of the batch with its status
and
meters, and every meter unplayable anywhere on the floor (a silent or not yet heard table). A
heartbeat is answered ``accepted`` with the reason "heartbeat noted (not logged)".

A table_device token bound to its tables (`streams.http.tokens`) has each item for another table,
event
or heartbeat, refused on its own with a reason naming the token and the table, and dead-lettered
like any refused input (the engine's ``scope``): it changes no meter and keeps no table alive,
and the batch's other items go on as usual.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from streams.codec import MAX_RAW_KEPT
from streams.embedded.engine import Outcome
from streams.http.common import (
    INGEST_ROLES,
    ApiContext,
    BodyError,
    error,
    guarded,
    parse_json,
    read_body,
)
from streams.http.tokens import Principal
from streams.liveness.tracker import batch_playability

MAX_BATCH: Final = 5_000
#: Commas a body may hold (so JSON values, nesting being bounded): a full batch of settlements
#: at seven seats (about 45 each) fits.
MAX_COMMAS: Final = 64 * MAX_BATCH


def routes(ctx: ApiContext) -> list[Route]:
    """The ingest route."""
    return [Route("/v1/events", guarded(ctx, INGEST_ROLES, partial(ingest, ctx)), methods=["POST"])]


async def ingest(ctx: ApiContext, request: Request, principal: Principal) -> Response:
    """Decide and append a batch; answer 200 with one result per event, or 400/413 for the body."""
    body = b""
    try:
        body = await read_body(request, ctx.max_body_bytes)
        # Off the event loop: a 4 MB body takes a while to parse, and /healthz must not wait.
        events = await run_in_threadpool(parse_events, body)
    except BodyError as exc:
        raw = (exc.head or body)[:MAX_RAW_KEPT].decode("utf-8", "replace")
        reason = f"{exc.reason} (posted by {principal.name})"
        await run_in_threadpool(ctx.controller.record_rejection, raw, reason)
        return error(exc.status, reason)
    started = time.perf_counter()
    scope = principal.refusal if principal.tables is not None else None
    # The controller writes SQLite with synchronous=FULL: off the event loop, so reads go on.
    outcomes: list[Outcome] = await run_in_threadpool(ctx.controller.submit, events, scope)
    ctx.sensor.observe_ingest(time.perf_counter() - started, [o.status for o in outcomes])
    ctx.sensor.observe_heartbeats([o.reason for o in outcomes])
    answer = summary(outcomes)
    # Off the event loop too: at most once a second it walks every table (10,000 on a big floor).
    answer["playability"] = await run_in_threadpool(_playability, ctx, events, principal)
    return JSONResponse(answer)


def _playability(ctx: ApiContext, events: list[object], principal: Principal) -> dict[str, object]:
    """The answer's ``playability``: the batch's tables (a bound token's own only: it was told
    the others are not its business), and the meters unplayable anywhere."""
    controller = ctx.controller
    ids = (e.get("table_id") for e in events if isinstance(e, dict))
    tables = (t for t in ids if isinstance(t, str) and not principal.refusal(t))
    return batch_playability(controller.partial_state().config, controller.liveness, tables)


def parse_events(body: bytes) -> list[object]:
    """The events of a body: its count of JSON values bounded before it is parsed, then parsed
    and shaped (`events_of`). Values in an array or object are apart by commas, and nesting is
    bounded (`MAX_BODY_DEPTH`), so the commas bound the values: a 4 MB body of ``[{},{},...]``
    (1.3 million objects, some 100 MB of Python objects) is refused before one is built."""
    commas = body.count(b",")
    if commas > MAX_COMMAS:
        msg = (
            f"body: {commas} commas, so too many JSON values, over the limit of {MAX_COMMAS} "
            f"({MAX_BATCH} events at most per request); split it"
        )
        raise BodyError(413, msg, body[:MAX_RAW_KEPT])
    return events_of(parse_json(body))


def events_of(value: object) -> list[object]:
    """The events a parsed body holds, or BodyError if it is none of the three accepted shapes."""
    if isinstance(value, dict) and "events" in value:
        if set(value) != {"events"} or not isinstance(value["events"], list):
            msg = 'body: an envelope is exactly {"events": [...]} with an array of events'
            raise BodyError(400, msg)
        items: list[object] = value["events"]
    elif isinstance(value, dict):
        items = [value]
    elif isinstance(value, list):
        items = value
    else:
        kind = "null" if value is None else type(value).__name__
        msg = (
            f'body: expected an event object, an array of events or {{"events": [...]}}, got {kind}'
        )
        raise BodyError(400, msg)
    if len(items) > MAX_BATCH:
        msg = f"body: {len(items)} events is over the limit of {MAX_BATCH} per request; split it"
        raise BodyError(413, msg)
    return items


def summary(outcomes: list[Outcome]) -> dict[str, object]:
    """The answer to a batch: one result per event, in the order posted, and the counts."""
    counts = {"accepted": 0, "duplicate": 0, "rejected": 0}
    for outcome in outcomes:
        counts[outcome.status] += 1
    return {
        "results": [
            {"event_id": o.event_id, "status": o.status, "reason": o.reason} for o in outcomes
        ],
        "accepted": counts["accepted"],
        "duplicates": counts["duplicate"],
        "rejected": counts["rejected"],
    }
