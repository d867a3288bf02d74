"""``jackpot serve --redis``: every durable batch reaches the signage read model in real Redis."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import httpx
import pytest

from streams.adapters.redis.read_model import RedisReadModel
from streams.http.tokens import add_token
from tests.integration.services import require_redis
from tests.streams.cli.test_serve import serving
from tests.streams.http.support import AKQ_SPADES, full_round


@pytest.mark.integration
def test_a_hit_posted_to_the_service_shows_on_the_redis_sign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = require_redis()
    prefix = f"serve-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REDIS_URL", url)
    monkeypatch.setenv("JACKPOT_REDIS_PREFIX", prefix)
    device = add_token(tmp_path / "var" / "tokens.json", "tcp-1-device", "table_device")
    reader = add_token(tmp_path / "var" / "tokens.json", "signage", "read_only")
    sign = RedisReadModel(url, prefix=prefix)
    with serving(tmp_path) as (base, _process, _output):
        seeded = sign.read("tcp-progressive")
        assert seeded is not None
        assert seeded["amount"] == "1000.00"  # 649a.12(e)(3): $1,000 for 1 at a $1 unit
        posted = httpx.post(
            f"{base}/v1/events",
            json=full_round(AKQ_SPADES),
            headers={"Authorization": f"Bearer {device}"},
            timeout=10.0,
        )
        assert posted.status_code == 200
        served = httpx.get(
            f"{base}/v1/meters/tcp-progressive",
            headers={"Authorization": f"Bearer {reader}"},
            timeout=10.0,
        ).json()
        deadline = time.monotonic() + 5
        shown = sign.read("tcp-progressive")
        while shown is not None and shown["amount"] != served["amount"]:
            assert time.monotonic() < deadline, shown
            time.sleep(0.05)
            shown = sign.read("tcp-progressive")
        _board_shows_only_tcp_1_heard(sign)
    assert shown is not None
    # A 100% hit of $1,000.14 resets the meter to its $1,000 reseed (649a.12(e)(1), (3)).
    assert (shown["amount"], served["amount"]) == ("1000.00", "1000.00")
    assert int(shown["seq"]) >= 3  # seeded, contributed, hit


def _board_shows_only_tcp_1_heard(sign: RedisReadModel) -> None:
    """Only tcp-1 has spoken since the start: its $1 meters stay in play (tcp-1 can still win
    them), the $5 one linked to the silent tcp-7 and tcp-8 is not in play (docs/services.md)."""
    deadline = time.monotonic() + 5
    board = sign.read_playability()
    while json.loads(board.get("table:tcp-1", "{}")).get("status") != "playable":
        assert time.monotonic() < deadline, board
        time.sleep(0.1)
        board = sign.read_playability()
    assert json.loads(board["meter:tcp-progressive"]) == {
        "status": "in_play",
        "unplayable_at": ["tcp-2", "tcp-3", "tcp-4", "tcp-5", "tcp-6"],
    }
    assert json.loads(board["meter:tcp-progressive-5"]) == {
        "status": "unplayable",
        "unplayable_at": ["tcp-7", "tcp-8"],
    }
    assert board["limit_seconds"] == "30"
