"""``jackpot kafka pages`` without Redis: the pages still answer, refuse a missing token, and say
they are not ready (every sign would show its stale fault), so an orchestrator sends no traffic."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from controller.config.floor import load_floor_config
from streams.adapters.redis.read_model import RedisReadModel
from streams.http.kafka_pages import create_pages_app, main
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
