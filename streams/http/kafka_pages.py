"""``jackpot kafka pages``: the signage and surveillance pages for the Kafka engine, fed from Redis.

::

    jackpot kafka pages --config FLOOR.toml --redis redis://127.0.0.1:6379/0 --tokens TOKENS.json

The Kafka engine has no HTTP API of its own (devices produce to ``<p>.table-events``), but floors
still want the same pages as ``jackpot serve`` gives: ``/signage``, ``/surveillance`` and their
streams (`streams.http.pages`, the same HTML and the same ``read_only`` tokens). Here the live feed
is
filled from the Redis read model that ``jackpot kafka signage`` keeps
(`streams.live.redis_source`): the
meter hashes for amounts and hits, the playability board for NOT IN PLAY and the surveillance
alerts. While Redis is away every sign turns to its stale fault; a board older than the limit
reads as every table unplayable. The process holds no state: restart it at will, run several.

Surveillance here shows hits (as their meter's hit count rises) and liveness alerts; envy,
splits, fixed awards and rejections are on the events topic (``jackpot kafka dump``), not in Redis.
Its section "Tables by hour and gaming day" reads ``GET /v1/surveillance/aggregates`` (the
``read_only`` and ``supervisor`` roles, ``?token=`` as the pages): the board ``jackpot kafka
readside --redis`` keeps in Redis (`streams.scaleout.readside.board`): contributions, hits and
awards per table for its recent hours and gaming days. 404 until a read side published one, 503
while Redis is away.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import ConfigError, StoreUnavailable
from streams.adapters.prometheus.sensor import MetricsSensor
from streams.adapters.redis.read_model import RedisReadModel, add_redis_arguments, password_from
from streams.http.common import READ_ROLES, Gatekeeper, error
from streams.http.pages import caller, page_routes
from streams.http.tokens import TokenStore
from streams.live.feed import LiveFeed
from streams.live.redis_source import run_redis_pump, watch_board


@dataclass(frozen=True, slots=True)
class PagesGate:
    """The tokens the pages accept, and where refusals are counted (`Gatekeeper`)."""

    tokens: TokenStore
    sensor: MetricsSensor


def create_pages_app(
    config: FloorConfig, model: RedisReadModel, tokens: TokenStore
) -> tuple[Starlette, threading.Event]:
    """The app, and the event that stops its Redis pump (set it when the server stops)."""
    feed = LiveFeed(config=config)  # names, venue and table links for the signs
    watch_board(feed, model.read_playability, config)
    stop = threading.Event()
    pump = threading.Thread(
        target=run_redis_pump, args=(feed, model, list(config.meters), stop), daemon=True
    )
    pump.start()

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        """Ready while Redis answers: otherwise every sign would only show its stale fault."""
        if feed.source_ok:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "not ready", "problem": feed.source_problem}, 503)

    gate = PagesGate(tokens, MetricsSensor())
    routes = [
        *page_routes(gate, feed),
        aggregates_route(gate, model.read_aggregates),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
    ]
    return Starlette(routes=routes), stop


NO_BOARD = (
    "no aggregates yet: `jackpot kafka readside --redis` publishes them here after its first review"
)


def aggregates_route(gate: Gatekeeper, read: Callable[[], str | None]) -> Route:
    """``GET /v1/surveillance/aggregates``: the read side's board as it is in Redis."""

    async def aggregates(request: Request) -> Response:
        principal = caller(gate, request, READ_ROLES)
        if isinstance(principal, Response):
            return principal
        try:
            text = await run_in_threadpool(read)  # a Redis call blocks
        except StoreUnavailable as exc:
            return error(503, str(exc))
        if text is None:
            return error(404, NO_BOARD)
        return Response(text, media_type="application/json", headers={"Cache-Control": "no-store"})

    return Route("/v1/surveillance/aggregates", aggregates, methods=["GET"])


def add_parser(kafka: Any) -> None:
    """Register ``jackpot kafka pages``."""
    parser = kafka.add_parser("pages", help="signage and surveillance pages fed from Redis")
    parser.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    add_redis_arguments(parser, "the Redis read model jackpot kafka signage keeps ($REDIS_URL)")
    parser.add_argument(
        "--tokens", type=Path, default=Path("var/tokens.json"), help="API tokens (hashed)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=int, default=8081, help="port (default 8081)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Serve until SIGTERM or SIGINT; exit 2 if the options or files are refused."""
    if not args.redis:
        print("jackpot kafka pages: --redis (or REDIS_URL) is required", file=sys.stderr)
        return 2
    try:
        tokens = TokenStore.load(args.tokens)
        text = args.config.read_text(encoding="utf-8")
        config = load_floor_config(text, str(args.config))
    except (ConfigError, OSError) as exc:
        print(f"jackpot kafka pages: {exc}", file=sys.stderr)
        return 2
    password = password_from(args.redis_password_file)
    model = RedisReadModel(args.redis, prefix=args.redis_prefix, password=password)
    app, stop = create_pages_app(config, model, tokens)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"jackpot kafka pages: http://{host}:{args.port}/signage?token=...", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        stop.set()
        model.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m streams.http.kafka_pages ...``: the same as ``jackpot kafka pages``."""
    parser = argparse.ArgumentParser(prog="python -m streams.http.kafka_pages")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["pages", *(sys.argv[1:] if argv is None else argv)])
    result: int = args.handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
