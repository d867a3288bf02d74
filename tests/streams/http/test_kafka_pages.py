"""``jackpot kafka pages`` without Redis: the pages still answer, refuse a missing token, and say
they are not ready (every sign would show its stale fault), so an orchestrator sends no traffic."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from controller.config.floor import load_floor_config
from controller.model.errors import StoreUnavailable
from streams.adapters.prometheus.sensor import MetricsSensor
from streams.adapters.redis.read_model import RedisReadModel
from streams.http.kafka_pages import PagesGate, aggregates_route, create_pages_app, main
from streams.http.tokens import TokenEntry, TokenStore, token_digest
from tests.streams.http.support import CONFIG

FLOOR = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))


def test_without_redis_the_pages_are_alive_but_not_ready_and_still_guarded() -> None:
    model = RedisReadModel("redis://127.0.0.1:9/0", connect_timeout=0.05)  # discard: nobody
    tokens = TokenStore([TokenEntry("sign", "read_only", token_digest("s3cret-sign"))])
    app, stop = create_pages_app(FLOOR, model, tokens)
    try:
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 200
            deadline = time.monotonic() + 10
            ready = client.get("/readyz")
            while ready.status_code == 200 and time.monotonic() < deadline:
                time.sleep(0.05)
                ready = client.get("/readyz")
            assert ready.status_code == 503
            assert "Redis read model" in ready.json()["problem"]
            assert client.get("/signage").status_code == 401
            page = client.get("/signage?token=s3cret-sign")
            assert page.status_code == 200
            assert "<html" in page.text.lower()
    finally:
        stop.set()
        model.close()


def test_the_command_refuses_to_start_without_redis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(["--config", str(CONFIG), "--tokens", str(tmp_path / "none.json")]) == 2


BOARD = '{"complete":true,"tables":[{"alert":null,"days":[],"hours":[],"table_id":"tcp-1"}]}'


def aggregates_client(read: Callable[[], str | None]) -> TestClient:
    tokens = TokenStore(
        [
            TokenEntry("screen", "read_only", token_digest("screen-token")),
            TokenEntry("boss", "supervisor", token_digest("boss-token")),
            TokenEntry("dev", "table_device", token_digest("device-token")),
        ]
    )
    gate = PagesGate(tokens, MetricsSensor())
    return TestClient(Starlette(routes=[aggregates_route(gate, read)]))


def test_the_aggregates_route_serves_the_read_sides_board_to_readers() -> None:
    client = aggregates_client(lambda: BOARD)
    answer = client.get("/v1/surveillance/aggregates?token=screen-token")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["cache-control"] == "no-store"
    assert answer.json()["tables"][0]["table_id"] == "tcp-1"
    header = {"Authorization": "Bearer boss-token"}  # a supervisor, by header only
    assert client.get("/v1/surveillance/aggregates", headers=header).status_code == 200


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("", 401),  # no token
        ("?token=nope", 401),
        ("?token=device-token", 403),  # a device may not read surveillance
        ("?token=boss-token", 403),  # a supervisor token never goes in a URL
    ],
)
def test_the_aggregates_route_is_guarded_like_the_pages(query: str, status: int) -> None:
    answer = aggregates_client(lambda: BOARD).get("/v1/surveillance/aggregates" + query)
    assert answer.status_code == status
    assert "tables" not in answer.text


def test_no_board_yet_is_404_and_redis_away_is_503_with_the_reason() -> None:
    none = aggregates_client(lambda: None).get("/v1/surveillance/aggregates?token=screen-token")
    assert none.status_code == 404
    assert "jackpot kafka readside --redis" in none.json()["error"]

    def away() -> str | None:
        raise StoreUnavailable("Redis read model at redis://x: read aggregates failed")

    down = aggregates_client(away).get("/v1/surveillance/aggregates?token=screen-token")
    assert down.status_code == 503
    assert "read aggregates failed" in down.json()["error"]


def test_the_pages_app_reads_the_board_from_redis_when_it_is_away() -> None:
    model = RedisReadModel("redis://127.0.0.1:9/0", connect_timeout=0.05)  # discard: nobody
    tokens = TokenStore([TokenEntry("sign", "read_only", token_digest("s3cret-sign"))])
    app, stop = create_pages_app(FLOOR, model, tokens)
    try:
        with TestClient(app) as client:
            answer = client.get("/v1/surveillance/aggregates?token=s3cret-sign")
            assert answer.status_code == 503
            assert "Redis read model" in answer.json()["error"]
    finally:
        stop.set()
        model.close()
