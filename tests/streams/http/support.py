"""What the HTTP API tests share: a real app over a real SQLite log, tokens per role, table events.

Each test gets its own database in ``tmp_path`` and its own app (the metrics registry is per app),
with the example floor ``examples/pa-three-card-poker.toml`` active.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
from starlette.testclient import TestClient

from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import EmbeddedController
from streams.http.app import DEFAULT_MAX_BODY, create_app
from streams.http.tokens import Role, TokenStore, token_digest

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "examples" / "pa-three-card-poker.toml"
#: role -> (token name, token). Made up for tests; never valid anywhere else.
TOKENS: dict[Role, tuple[str, str]] = {
    "table_device": ("tcp-1-device", "device-test-token-0123456789abcdef"),
    "supervisor": ("floor-sup-ann", "supervisor-test-token-0123456789abcdef"),
    "read_only": ("signage", "reader-test-token-0123456789abcdef"),
}
#: A second, different supervisor: dual control needs two people (issue 15).
SECOND_SUPERVISOR: tuple[str, str] = ("floor-sup-bob", "supervisor-b-test-token-0123456789abcdef")
Event = dict[str, object]


@dataclass
class Api:
    """A running app and what it runs on."""

    client: TestClient
    controller: EmbeddedController
    log: SqliteLog

    def meters(self) -> list[dict[str, object]]:
        """The meters as a supervisor reads them."""
        answer = self.client.get("/v1/meters", headers=auth("supervisor"))
        assert answer.status_code == 200
        meters: list[dict[str, object]] = answer.json()["meters"]
        return meters

    def rejections(self) -> list[dict[str, object]]:
        """Every dead letter in the log."""
        answer = self.client.get("/v1/rejections?limit=1000", headers=auth("supervisor"))
        assert answer.status_code == 200
        rows: list[dict[str, object]] = answer.json()["rejections"]
        return rows


def auth(role: Role | Literal["supervisor_b"]) -> dict[str, str]:
    """The Authorization header of the test token for ``role`` ("supervisor_b": the second
    supervisor)."""
    token = SECOND_SUPERVISOR[1] if role == "supervisor_b" else TOKENS[role][1]
    return {"Authorization": f"Bearer {token}"}


def with_idempotency_keys(client: TestClient) -> TestClient:
    """``client``, sending a fresh ``Idempotency-Key`` with every POST that has none: every
    state-changing operator call requires one. A test of retries sends its own key; a test of
    the refusal without a key uses a client without this hook."""

    def add_key(request: httpx.Request) -> None:
        if request.method == "POST" and "idempotency-key" not in request.headers:
            request.headers["Idempotency-Key"] = str(uuid.uuid4())

    client.event_hooks = {"request": [add_key], "response": []}
    return client


def token_store() -> TokenStore:
    """A store holding the three test tokens, hashed as the file would hold them."""
    second: tuple[str, Role, str] = (
        SECOND_SUPERVISOR[0],
        "supervisor",
        token_digest(SECOND_SUPERVISOR[1]),
    )
    return TokenStore(
        [(name, role, token_digest(token)) for role, (name, token) in TOKENS.items()] + [second]
    )


@contextmanager
def open_api(tmp_path: Path, *, max_body_bytes: int = DEFAULT_MAX_BODY) -> Iterator[Api]:
    """An app over a fresh log with the example floor active; the log is closed afterwards."""
    log = SqliteLog(tmp_path / "jackpot.db")
    try:
        controller = EmbeddedController(log, log)
        started = controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
        assert started.status in ("accepted", "duplicate"), started
        app = create_app(controller, token_store(), max_body_bytes=max_body_bytes)
        with with_idempotency_keys(TestClient(app)) as client:
            yield Api(client, controller, log)
    finally:
        log.close()


def event(
    seq: int, kind: str, table: str = "tcp-1", round_id: str = "R1", **fields: object
) -> Event:
    """A table event with the common fields filled in (event id "<table>:<seq>")."""
    return {
        "event_id": f"{table}:{seq}",
        "type": kind,
        "table_id": table,
        "round_id": round_id,
        "seq": seq,
        "occurred_at": f"2026-11-29T16:{seq // 60:02d}:{seq % 60:02d}Z",
        **fields,
    }


def opening(table: str = "tcp-1", round_id: str = "R1", start: int = 1) -> list[Event]:
    """A round opened at ``table`` with seat 1 wagering an Ante and the $1 progressive, locked."""
    return [
        event(start, "round_opened", table, round_id, game="three_card_poker"),
        event(start + 1, "wager_placed", table, round_id, seat=1, wager="ante", amount="1.00"),
        event(
            start + 2, "wager_placed", table, round_id, seat=1, wager="progressive", amount="1.00"
        ),
        event(start + 3, "wagers_locked", table, round_id),
    ]


def full_round(
    cards: tuple[str, str, str] = ("2c", "5d", "9h"),
    table: str = "tcp-1",
    round_id: str = "R1",
    start: int = 1,
) -> list[Event]:
    """A complete round: `opening`, seat 1 plays, and settles holding ``cards``."""
    return [
        *opening(table, round_id, start),
        event(start + 4, "decision", table, round_id, seat=1, action="play", amount="1.00"),
        event(
            start + 5,
            "round_settled",
            table,
            round_id,
            dealer=["Jc", "7d", "8h"],
            community=[],
            seats={"1": list(cards)},
        ),
    ]


AKQ_SPADES = ("As", "Ks", "Qs")  # 649a.12(e)(1): 100% of the meter
