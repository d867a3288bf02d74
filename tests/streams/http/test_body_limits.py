"""Issue 15, finding 8: a body's count of JSON values is bounded before it is parsed (and the
parse runs off the event loop); a client that stalls mid-body is dropped after a read timeout."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.requests import Request
from starlette.types import Message

from streams.http import common, ingest
from streams.http.common import BodyError, read_body
from tests.streams.http.support import Api, auth, event, open_api


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    with open_api(tmp_path) as running:
        yield running


def test_a_body_of_a_million_empty_objects_is_refused_before_it_is_parsed(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_parse(body: bytes) -> object:
        raise AssertionError("parsed")  # pragma: no cover - the point is that it is not reached

    monkeypatch.setattr(ingest, "parse_json", no_parse)
    body = b"[" + b",".join([b"{}"] * 1_000_000) + b"]"  # 3 MB, under the 4 MB byte limit
    answer = api.client.post("/v1/events", content=body, headers=auth("table_device"))
    assert answer.status_code == 413
    assert "too many JSON values" in answer.json()["error"]
    assert "too many JSON values" in str(api.rejections()[-1]["reason"])  # recorded


def test_a_full_batch_of_settlements_is_within_the_bound() -> None:
    settled = event(
        6,
        "round_settled",
        dealer=["Jc", "7d", "8h"],
        community=["2c", "3d"],
        seats={str(seat): ["As", "Ks", "Qs"] for seat in range(1, 8)},
    )
    body = json.dumps([settled] * ingest.MAX_BATCH).encode()
    assert len(ingest.parse_events(body)) == ingest.MAX_BATCH


def _stalling(first: bytes) -> Request:
    """A request whose client sends ``first`` and then nothing."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": first, "more_body": True}
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")  # pragma: no cover

    scope = {"type": "http", "method": "POST", "headers": [], "path": "/v1/events"}
    return Request(scope, receive)


def test_a_client_that_stalls_mid_body_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "READ_TIMEOUT", 0.2)
    with pytest.raises(BodyError) as raised:
        asyncio.run(asyncio.wait_for(read_body(_stalling(b'[{"event_id": '), 4096), 5))
    assert raised.value.status == 408
    assert raised.value.head == b'[{"event_id": '
