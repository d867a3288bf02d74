"""``GET /v1/reconciliation``: the reconciliation of ``jackpot reconcile`` over HTTP, JSON or CSV.

Query (one period; the whole log when none is given):

- ``gaming_day=2026-11-29`` with ``day_starts=06:00`` and ``utc_offset=-05:00`` (these defaults:
  06:00, +00:00), or ``from=...&to=...`` (RFC 3339, ``to`` exclusive), or
  ``after_position=N&to_position=M``;
- ``format=json`` (default) or ``format=csv``.

The answer is 200 with the report whether or not it balances (``"ok"`` in the JSON says which; the
CSV lists findings as rows); 400 ``{"error": reason}`` for a query that names no valid period. The
log is read in a worker thread, so a long fold does not hold up the event loop. The application
mounts these routes and may wrap the endpoint with its authentication (``guard``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.reconciliation.report import Period, Report
from streams.ports import EventLog
from streams.reconcile.service import (
    UsageError,
    day_window,
    output,
    parse_clock,
    parse_day,
    parse_instant,
    parse_offset,
    position_window,
    reconcile_log,
    time_window,
)

Endpoint = Callable[[Request], Awaitable[Response]]
QUERY = frozenset(
    {"gaming_day", "day_starts", "utc_offset", "from", "to", "after_position", "to_position"}
    | {"format"}
)


def reconcile_routes(
    log_factory: Callable[[], EventLog], *, guard: Callable[[Endpoint], Endpoint] | None = None
) -> list[Route]:
    """The route; ``log_factory`` gives the log to read (it is not closed after the request, so
    pass the application's shared log, e.g. ``lambda: ctx.log``)."""

    async def reconciliation(request: Request) -> Response:
        query = request.query_params
        try:
            period, fmt = period_from_query(query), query.get("format", "json")
            if fmt not in {"json", "csv"}:
                msg = f"format {fmt[:20]!r} is not json or csv"
                raise UsageError(msg)
        except UsageError as exc:
            return JSONResponse({"error": f"query: {exc}"}, status_code=400)
        report: Report = await run_in_threadpool(reconcile_log, log_factory(), period)
        if fmt == "csv":
            name = f"reconciliation-{query.get('gaming_day', 'period')}.csv"
            return Response(
                output(report, (), "csv"),
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="{name}"'},
            )
        return Response(output(report, (), "json"), media_type="application/json")

    endpoint = guard(reconciliation) if guard is not None else reconciliation
    return [Route("/v1/reconciliation", endpoint, methods=["GET"])]


def period_from_query(query: Mapping[str, str]) -> Period:
    """The period a query names; UsageError saying what is wrong."""
    unknown = sorted(set(query) - QUERY)
    if unknown:
        msg = f"unknown parameter {unknown[0][:40]!r}; allowed: {', '.join(sorted(QUERY))}"
        raise UsageError(msg)
    day, start, end = query.get("gaming_day"), query.get("from"), query.get("to")
    after, to = query.get("after_position"), query.get("to_position")
    given = (
        day is not None,
        start is not None or end is not None,
        after is not None or to is not None,
    )
    if sum(given) > 1:
        msg = "give one period: gaming_day, from/to, or after_position/to_position"
        raise UsageError(msg)
    if day is not None:
        starts = parse_clock(query.get("day_starts", "06:00"))
        return day_window(parse_day(day), starts, parse_offset(query.get("utc_offset", "+00:00")))
    if start is not None or end is not None:
        return time_window(_instant(start), _instant(end))
    return position_window(_position(after) or 0, _position(to))


def _instant(text: str | None) -> datetime:
    if text is None:
        msg = "from and to go together"
        raise UsageError(msg)
    return parse_instant(text)


def _position(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 19:
        msg = f"position {text[:40]!r} is not a whole number"
        raise UsageError(msg)
    return int(text)
