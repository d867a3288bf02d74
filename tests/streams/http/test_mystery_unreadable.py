"""No read API, page or metric shows an armed mystery trigger before its hit (N.J.A.C.
13:69E-1.39B / GLI-12: the hit amount is not knowable before the hit), for any role."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.http.app import create_app
from tests.controller.test_mystery import MYSTERY
from tests.streams.embedded.test_mystery_engine import KEY, rounds
from tests.streams.http.support import auth, token_store

READS = ("/v1/meters", "/v1/meters/tcp-mystery", "/v1/hits", "/v1/awards", "/v1/log?limit=1000",
         "/v1/rejections", "/v1/reconciliation", "/v1/playability", "/surveillance", "/signage",
         "/metrics")  # fmt: skip


def test_no_read_shows_the_armed_trigger(tmp_path: Path) -> None:
    log = SqliteLog(tmp_path / "jackpot.db")
    try:
        engine = EmbeddedController(log, log, mystery_key=KEY)
        engine.start(MYSTERY, "mystery.toml")
        engine.submit(rounds(1, 9))  # hits and re-armings on the way
        armed = engine.state.meters["tcp-mystery"]
        assert armed.mystery_trigger_cents >= 10_000  # the engine knows it
        secret = (armed.mystery_salt, f'"trigger_cents":{armed.mystery_trigger_cents}')
        app = create_app(engine, token_store())
        with TestClient(app) as client:
            for role in ("read_only", "table_device", "supervisor"):
                for path in READS:
                    answer = client.get(path, headers=auth(role))
                    body = answer.text.replace(" ", "")
                    assert secret[0] not in body, (role, path)
                    assert secret[1] not in body, (role, path)
            # Reads do answer: the test would pass vacuously if every read were refused.
            assert client.get("/v1/log?limit=1000", headers=auth("supervisor")).status_code == 200
            assert (
                "mystery_armed" in client.get("/v1/log?limit=1000", headers=auth("supervisor")).text
            )
    finally:
        log.close()
