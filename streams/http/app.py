"""The HTTP edge of the embedded controller: a Starlette app over one `EmbeddedController`.

Routes (the contract is GET /openapi.json, `streams.http.openapi`)::

    POST /v1/events                           table_device, supervisor   ingest (http_routes_ingest)
    GET  /v1/meters, /v1/meters/{id}          read_only, supervisor      state (http_routes_read)
    GET  /v1/hits, /v1/awards, /v1/log,       read_only, supervisor      state and log pages
         /v1/rejections, /v1/playability
    POST /v1/meters/{id}/corrections          supervisor                 (http_routes_operator)
    POST /v1/hits/{hit_id}/validate, /pay     supervisor
    GET  /healthz, /readyz, /metrics,         no authentication
         /openapi.json

/metrics has no authentication: it shows meter values and counts but no ids or secrets, and is
meant for a Prometheus on loopback or a private network. Serve the app on 127.0.0.1 (the
``jackpot serve`` default) or put an authenticating proxy in front before exposing it wider.

Why the controller's work runs in a thread pool: `EmbeddedController` is synchronous, and its
SQLite appends wait for fsync; the event loop stays free for reads and health checks meanwhile.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Lifespan

from controller.model.errors import StoreUnavailable
from streams.adapters.prometheus.sensor import EXPOSITION_CONTENT_TYPE, MetricsSensor
from streams.embedded.engine import EmbeddedController
from streams.http import ingest as http_routes_ingest
from streams.http import openapi as http_routes_openapi
from streams.http import operator, pages
from streams.http import playability as http_routes_playability
from streams.http import read as http_routes_read
from streams.http import transfer as http_routes_transfer
from streams.http.common import (
    READ_ROLES,
    ApiContext,
    BodyError,
    Endpoint,
    error,
    guarded,
)
from streams.http.reconciliation import reconcile_routes
from streams.http.tokens import Principal, TokenStore
from streams.ports import EventLog

DEFAULT_MAX_BODY: Final = 4 * 1024 * 1024


def create_app(
    controller: EmbeddedController,
    tokens: TokenStore,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    log: EventLog | None = None,
    sensor: MetricsSensor | None = None,
    on_shutdown: Callable[[], None] | None = None,
    on_startup: Callable[[], None] | None = None,
) -> Starlette:
    """The app. ``log`` is the controller's log (read for awards, the log and dead letters);
    by default the controller's own. ``sensor`` is attached to ``controller``; a new one by
    default (its registry is its own, so many apps can live in one process). ``on_shutdown``
    runs in a worker thread once the server has drained, e.g. to snapshot and close the log;
    ``on_startup`` as the server starts, before it listens (e.g. start the background check)."""
    metrics = sensor or MetricsSensor()
    metrics.attach(controller)
    ctx = ApiContext(
        controller=controller,
        log=log if log is not None else controller.log,
        tokens=tokens,
        sensor=metrics,
        max_body_bytes=max_body_bytes,
    )
    route_list: list[BaseRoute] = [
        *http_routes_ingest.routes(ctx),
        *http_routes_read.routes(ctx),
        *http_routes_playability.routes(ctx),
        *operator.routes(ctx),
        *http_routes_transfer.routes(ctx),
        *reconcile_routes(lambda: ctx.log, guard=lambda ep: _read_guard(ctx, ep)),
        *pages.routes(ctx),
        *_service_routes(ctx),
        *http_routes_openapi.routes(),
    ]
    handlers = {
        BodyError: _body_error,
        HTTPException: _http_error,
        StoreUnavailable: _store_unavailable,
    }
    lifespan = _lifespan(on_startup, on_shutdown)
    app = Starlette(routes=route_list, exception_handlers=handlers, lifespan=lifespan)
    app.state.context = ctx
    return app


def _read_guard(ctx: ApiContext, endpoint: Endpoint) -> Endpoint:
    """Reconciliation is for accounting: the read roles (read_only, supervisor)."""

    async def handler(request: Request, _principal: Principal) -> Response:
        return await endpoint(request)

    return guarded(ctx, READ_ROLES, handler)


def _lifespan(
    on_startup: Callable[[], None] | None, on_shutdown: Callable[[], None] | None
) -> Lifespan[Starlette]:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if on_startup is not None:
            on_startup()
        yield
        if on_shutdown is not None:
            await run_in_threadpool(on_shutdown)

    return lifespan


def _service_routes(ctx: ApiContext) -> list[Route]:
    async def healthz(request: Request) -> Response:
        """The process answers (nothing else is checked: that is /readyz)."""
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        """Ready to serve, and the background full check's status (running / passed / failed
        with the position): start-up walked only the chain after its snapshot."""
        reason = await run_in_threadpool(_not_ready, ctx)
        check = ctx.controller.full_check.as_dict()
        if reason:
            body: dict[str, object] = {"status": "not_ready", "reason": reason}
            return JSONResponse({**body, "full_check": check}, status_code=503)
        body = {"status": "ready", "position": ctx.controller.position, "full_check": check}
        return JSONResponse(body)

    async def metrics(request: Request) -> Response:
        """Prometheus text, without authentication: fine on loopback or a private network (no
        ids or secrets in it); put an authenticating proxy in front to expose it wider."""
        # Off the event loop: the liveness gauges are computed per scrape, one per table and link.
        text = await run_in_threadpool(ctx.sensor.exposition)
        return Response(text, media_type=EXPOSITION_CONTENT_TYPE)

    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]


def _not_ready(ctx: ApiContext) -> str:
    """Why the app cannot serve yet ("" when it can): no configuration restored, or no log."""
    if ctx.controller.partial_state().config is None:
        return "no floor configuration is active: the state is not restored yet"
    if ctx.controller.integrity_fault:
        return f"the integrity self-check failed: {ctx.controller.integrity_fault}"
    try:
        ctx.log.head()
    except Exception as exc:  # any failure (a closed or missing database...) means "not ready"
        return f"the event log cannot be read: {type(exc).__name__}: {exc}"
    return ""


async def _body_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BodyError)
    return error(exc.status, exc.reason)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, exc.detail, exc.headers)


async def _store_unavailable(request: Request, exc: Exception) -> Response:
    return error(503, f"the event log cannot be written right now; retry: {exc}")
