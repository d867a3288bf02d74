"""``POST /v1/meters/{meter_id}/transfer`` under dual control (PA 44 Pa.B. 599; Indiana 68 IAC
2-6-33): the $5 tables leave the floor, their links are removed, then two different supervisors
move tcp-progressive-5's pool ($5,000.00) to tcp-progressive ($1,000.00 -> $6,000.00)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.http.app import create_app
from streams.http.tokens import TokenStore, token_digest
from tests.controller.test_transfer import UNLINKED
from tests.streams.http.support import CONFIG, TOKENS, auth, with_idempotency_keys

SECOND = "second-supervisor-token-0123456789abcdef"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    log = SqliteLog(tmp_path / "jackpot.db")
    entries = [(name, role, token_digest(token)) for role, (name, token) in TOKENS.items()]
    entries.append(("floor-sup-bob", "supervisor", token_digest(SECOND)))
    try:
        engine = EmbeddedController(log, log)
        engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
        app = create_app(engine, TokenStore(entries))
        with with_idempotency_keys(TestClient(app)) as running:
            unlink = {"toml": UNLINKED, "source": "unlinked.toml"}
            assert running.post("/v1/config", json=unlink, headers=auth("supervisor")).is_success
            yield running
    finally:
        log.close()


BODY = {"to": "tcp-progressive", "reason": "tcp-7 and tcp-8 leave the floor"}


def test_two_supervisors_move_the_pool_and_the_meter_retires(client: TestClient) -> None:
    headers = {**auth("supervisor"), "Second-Authorization": f"Bearer {SECOND}"}
    answer = client.post("/v1/meters/tcp-progressive-5/transfer", json=BODY, headers=headers)
    assert answer.status_code == 200, answer.text
    document = answer.json()
    assert (document["meter"]["amount"], document["meter"]["retired"]) == ("0.00", True)
    assert document["to"]["amount"] == "6000.00"
    log = client.get("/v1/log?limit=1000", headers=auth("supervisor")).text
    assert '"approved_by":"floor-sup-bob"' in log.replace(" ", "").replace('\\"', '"')
    again = client.post("/v1/meters/tcp-progressive-5/transfer", json=BODY, headers=headers)
    assert again.status_code == 409
    assert "retired" in again.json()["error"]


def test_a_retried_transfer_gets_the_first_answer_and_moves_the_pool_once(
    client: TestClient,
) -> None:
    """Issue 15's idempotency holds for the transfer too: the same key, the first answer."""
    headers = {
        **auth("supervisor"),
        "Second-Authorization": f"Bearer {SECOND}",
        "Idempotency-Key": "transfer-tcp-progressive-5",
    }
    first = client.post("/v1/meters/tcp-progressive-5/transfer", json=BODY, headers=headers)
    retry = client.post("/v1/meters/tcp-progressive-5/transfer", json=BODY, headers=headers)
    assert first.status_code == retry.status_code == 200, retry.text
    assert retry.headers.get("Idempotent-Replayed") == "true"
    assert retry.json()["command_id"] == first.json()["command_id"]
    assert retry.json()["to"]["amount"] == "6000.00"
    other = {**BODY, "to": "tcp-progressive"} | {"reason": "another reason"}
    clash = client.post("/v1/meters/tcp-progressive-5/transfer", json=other, headers=headers)
    assert clash.status_code == 422


@pytest.mark.parametrize(
    ("second", "fragment"),
    [
        (None, "Second-Authorization"),
        ("Bearer " + TOKENS["read_only"][1], "another supervisor"),
        ("Bearer " + TOKENS["supervisor"][1], "different"),
    ],
)
def test_one_supervisor_alone_cannot_transfer(
    client: TestClient, second: str | None, fragment: str
) -> None:
    headers = auth("supervisor") | ({"Second-Authorization": second} if second else {})
    answer = client.post("/v1/meters/tcp-progressive-5/transfer", json=BODY, headers=headers)
    assert answer.status_code == 403
    assert fragment in answer.json()["error"]
    meters = client.get("/v1/meters/tcp-progressive-5", headers=auth("read_only")).json()
    assert meters["amount"] == "5000.00"


def test_a_reader_may_not_and_a_linked_meter_is_refused_with_the_reason(
    client: TestClient,
) -> None:
    headers = {**auth("supervisor"), "Second-Authorization": f"Bearer {SECOND}"}
    forbidden = {**auth("read_only"), "Second-Authorization": f"Bearer {SECOND}"}
    answer = client.post("/v1/meters/tcp-progressive-5/transfer", json=BODY, headers=forbidden)
    assert answer.status_code == 403
    linked = client.post(
        "/v1/meters/tcp-progressive/transfer",
        json={"to": "tcp-progressive-5", "reason": "wrong way"},
        headers=headers,
    )
    assert linked.status_code == 409
    assert "remove its links first" in linked.json()["error"]
    assert (
        client.post(
            "/v1/meters/tcp-progressive-5/transfer", json={"to": ""}, headers=headers
        ).status_code
        == 400
    )
