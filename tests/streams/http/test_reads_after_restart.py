"""After a restart the API answers meters, hits and playability, and takes table events, without
decoding the tables the snapshot holds (issue 14: back in service in under 1 s at 10,000 tables,
where decoding every table costs ~0.6 s): only a table an event touches is decoded, on its first
use. (An operator command still decides on the whole state, decoding every table once.)
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from starlette.testclient import TestClient

from controller.model.state import TableState
from streams.adapters.chain import load_key
from streams.embedded import integrity
from streams.embedded.snapshot import decode_table
from streams.http.app import create_app
from tests.streams.embedded.tamper_support import started
from tests.streams.http.support import (
    AKQ_SPADES,
    auth,
    full_round,
    token_store,
    with_idempotency_keys,
)


def _snapshotted_floor(tmp_path: Path) -> tuple[Path, bytes, str]:
    """Two tables played (one hit the progressive), a snapshot at the head; the hit's id."""
    db, key = tmp_path / "jackpot.db", load_key(tmp_path / "secrets" / "snapshot.key")
    controller = started(db, key)
    try:
        controller.submit(full_round(AKQ_SPADES))
        controller.submit(full_round(table="tcp-3"))
        controller.snapshot()
        [hit_id] = controller.state.hits
    finally:
        controller.log.close()
    return db, key, hit_id


def test_reads_and_events_after_a_restart_decode_only_the_tables_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, key, hit_id = _snapshotted_floor(tmp_path)
    decoded: list[str] = []

    def counted_decode(raw: bytes | msgspec.Raw) -> TableState:
        table = decode_table(raw)
        decoded.append(table.table_id)
        return table

    monkeypatch.setattr(integrity, "decode_table", counted_decode)
    controller = started(db, key)
    reader = auth("read_only")
    try:
        app = create_app(controller, token_store())
        with with_idempotency_keys(TestClient(app)) as client:
            meters = client.get("/v1/meters", headers=reader).json()["meters"]
            assert {m["meter_id"] for m in meters} >= {"tcp-progressive"}
            assert client.get("/v1/meters/tcp-progressive", headers=reader).status_code == 200
            assert client.get("/v1/meters/nope", headers=reader).status_code == 404
            hits = client.get("/v1/hits", headers=reader).json()["hits"]
            assert [h["hit_id"] for h in hits] == [hit_id]
            assert client.get("/v1/playability", headers=reader).status_code == 200
            assert decoded == [], decoded
            # An event decodes its own table, and only that one.
            body = full_round(table="tcp-3", round_id="R2", start=7)
            answer = client.post("/v1/events", json=body, headers=auth("table_device"))
            assert answer.status_code == 200, answer.text
        assert decoded == ["tcp-3"]
    finally:
        controller.log.close()
