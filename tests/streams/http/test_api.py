"""The HTTP API over a real SQLite log: ingest, every class of bad input, auth, reads, the contract.

Bad input is tried for real and each time three things are checked: a clear error, a record of
it (a dead letter in /v1/rejections, or the auth-failure metric when the caller is not even
authenticated), and meters unchanged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from streams.embedded.self_check import run_check
from streams.http.app import create_app
from streams.http.ingest import MAX_BATCH
from streams.http.tokens import Role
from tests.streams.http.support import (
    AKQ_SPADES,
    Api,
    auth,
    event,
    full_round,
    open_api,
    opening,
    token_store,
)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    with open_api(tmp_path) as running:
        yield running


def post(api: Api, body: object, role: Role = "table_device") -> dict[str, Any]:
    answer = api.client.post("/v1/events", json=body, headers=auth(role))
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def meter_amount(api: Api, meter_id: str) -> str:
    answer = api.client.get(f"/v1/meters/{meter_id}", headers=auth("read_only"))
    assert answer.status_code == 200
    amount: str = answer.json()["amount"]
    return amount


# --- ingest --------------------------------------------------------------------------------------


def test_a_round_is_accepted_and_funds_the_meter(api: Api) -> None:
    answer = post(api, full_round())
    assert answer["accepted"] == 6
    assert (answer["duplicates"], answer["rejected"]) == (0, 0)
    results = answer["results"]
    assert [r["event_id"] for r in results] == [f"tcp-1:{n}" for n in range(1, 7)]
    assert all(r["status"] == "accepted" and r["reason"] == "" for r in results)
    # 649a.12(e)(3): 14% of a $1 wager on the $1,000 meter
    assert meter_amount(api, "tcp-progressive") == "1000.14"


def test_one_event_an_array_and_an_envelope_are_all_accepted(api: Api) -> None:
    events = full_round()
    assert post(api, events[0])["accepted"] == 1
    assert post(api, events[1:3])["accepted"] == 2
    assert post(api, {"events": events[3:]})["accepted"] == 3
    assert post(api, [])["results"] == []


def test_a_resent_batch_is_answered_duplicate_and_changes_nothing(api: Api) -> None:
    post(api, full_round())
    before, head = api.meters(), api.log.head()
    again = post(api, full_round())
    assert again["duplicates"] == 6
    assert again["accepted"] == again["rejected"] == 0
    assert {r["status"] for r in again["results"]} == {"duplicate"}
    assert (api.meters(), api.log.head()) == (before, head)


@pytest.mark.parametrize(
    ("event_body", "expected"),
    [
        pytest.param(
            event(5, "wager_placed", seat=1, wager="ante", amount="1.005"),
            "wager_placed.amount: '1.005' is not a positive whole number of cents",
            id="schema-violation",
        ),
        pytest.param(
            event(1, "round_opened", table="tcp-99", game="three_card_poker"),
            "unknown table 'tcp-99'",
            id="unknown-table",
        ),
        pytest.param(
            event(5, "wager_placed", seat=2, wager="ante", amount="1.00"),
            "wager after wagers_locked",
            id="wager-after-lock",
        ),
        pytest.param(
            {**event(3, "wagers_locked"), "event_id": "late"},
            "seq 3 is not after the table's last",
            id="seq-backwards",
        ),
    ],
)
def test_a_refused_event_is_answered_recorded_and_changes_no_meter(
    api: Api, event_body: dict[str, object], expected: str
) -> None:
    post(api, opening())
    before = api.meters()
    answer = post(api, [event_body])
    [result] = answer["results"]
    assert result["status"] == "rejected"
    assert expected in result["reason"]
    assert answer["rejected"] == 1
    [dead] = api.rejections()
    assert dead["event_id"] == event_body["event_id"]
    assert expected in str(dead["reason"])
    assert json.loads(str(dead["raw"])) == event_body
    assert api.meters() == before


@pytest.mark.parametrize(
    ("body", "status", "expected"),
    [
        pytest.param(b'{"event_id": "x", ', 400, "malformed JSON", id="malformed-json"),
        pytest.param(b"\xff\xfe{}", 400, "not UTF-8", id="not-utf8"),
        pytest.param(b'"a string"', 400, "got str", id="string"),
        pytest.param(b"42", 400, "got int", id="number"),
        pytest.param(b"null", 400, "got null", id="null"),
        pytest.param(b"", 400, "malformed JSON", id="empty"),
        pytest.param(b'{"events": {"a": 1}}', 400, "envelope", id="envelope-not-array"),
        pytest.param(b'{"events": [], "x": 1}', 400, "envelope", id="envelope-extra-key"),
        pytest.param(b'{"seq": 1, "seq": 2}', 400, "more than once", id="repeated-key"),
        pytest.param(b'{"seq": NaN}', 400, "NaN is not JSON", id="nan"),
        pytest.param(b"[" * 100_000, 400, "nested deeper than 34", id="deep-nesting"),
        pytest.param(b'{"a":' * 40 + b"1" + b"}" * 40, 400, "nested deeper", id="deep-objects"),
        pytest.param(
            json.dumps([{}] * (MAX_BATCH + 1)).encode(), 413, "5001 events", id="batch-too-long"
        ),
    ],
)
def test_a_body_that_is_no_events_is_refused_and_dead_lettered(
    api: Api, body: bytes, status: int, expected: str
) -> None:
    before = api.meters()
    answer = api.client.post("/v1/events", content=body, headers=auth("table_device"))
    assert answer.status_code == status
    assert expected in answer.json()["error"]
    [dead] = api.rejections()
    assert expected in str(dead["reason"])
    assert "posted by tcp-1-device" in str(dead["reason"])
    assert api.meters() == before


def test_a_body_over_the_limit_by_content_length_is_refused_unread(tmp_path: Path) -> None:
    with open_api(tmp_path, max_body_bytes=1_000) as api:
        body = json.dumps(full_round()).encode()
        assert len(body) > 1_000
        answer = api.client.post("/v1/events", content=body, headers=auth("table_device"))
        assert answer.status_code == 413
        assert "Content-Length" in answer.json()["error"]
        [dead] = api.rejections()
        assert "tcp-1:1" in str(dead["raw"])  # the head of the body is kept as evidence
        assert api.log.head() == dead["position"]
        assert len(api.controller.state.tables) == 0


def test_a_lying_content_length_is_refused(tmp_path: Path) -> None:
    with open_api(tmp_path, max_body_bytes=1_000) as api:
        headers = auth("table_device") | {"Content-Length": str(10**12)}
        answer = api.client.post("/v1/events", content=b"[]", headers=headers)
        assert answer.status_code == 413
        assert len(api.rejections()) == 1


def test_a_body_over_the_limit_by_streamed_bytes_is_refused(tmp_path: Path) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"["
        for number in range(1, 200):
            yield json.dumps(event(number, "wagers_locked")).encode() + b","
        yield b"{}]"

    with open_api(tmp_path, max_body_bytes=4_096) as api:
        # a generator body is sent chunked: no Content-Length, so only counting can catch it
        answer = api.client.post("/v1/events", content=chunks(), headers=auth("table_device"))
        assert answer.status_code == 413
        assert "more than 4096 bytes sent" in answer.json()["error"]
        [dead] = api.rejections()
        assert str(dead["raw"]).startswith("[{")
        assert len(api.controller.state.tables) == 0


# --- authentication and roles --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "status", "kind"),
    [
        pytest.param({}, 401, "missing", id="missing-token"),
        pytest.param({"Authorization": "Basic dXNlcjpwdw=="}, 401, "malformed", id="not-bearer"),
        pytest.param({"Authorization": "Bearer "}, 401, "malformed", id="empty-token"),
        pytest.param({"Authorization": "Bearer not-a-token"}, 401, "invalid", id="wrong-token"),
        pytest.param(auth("read_only"), 403, "forbidden", id="wrong-role"),
    ],
)
def test_an_unauthorised_post_is_refused_counted_and_never_applied(
    api: Api, headers: dict[str, str], status: int, kind: str
) -> None:
    before, head = api.meters(), api.log.head()
    answer = api.client.post("/v1/events", json=full_round(), headers=headers)
    assert answer.status_code == status
    assert answer.json()["error"]
    if status == 401:
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert (api.meters(), api.log.head()) == (before, head)
    metrics = api.client.get("/metrics").text
    assert f'jackpot_http_auth_failures_total{{reason="{kind}"}} 1.0' in metrics


@pytest.mark.parametrize(
    ("role", "method", "path", "status"),
    [
        ("table_device", "GET", "/v1/meters", 403),
        ("table_device", "GET", "/v1/log", 403),
        ("table_device", "POST", "/v1/hits/x/validate", 403),
        ("read_only", "POST", "/v1/meters/tcp-progressive/corrections", 403),
        ("read_only", "POST", "/v1/hits/x/pay", 403),
        ("read_only", "GET", "/v1/rejections", 200),
        ("supervisor", "GET", "/v1/awards", 200),
        ("supervisor", "POST", "/v1/events", 200),
        ("table_device", "GET", "/v1/reconciliation", 403),
        ("read_only", "GET", "/v1/reconciliation", 200),
        ("read_only", "GET", "/v1/reconciliation?format=csv", 200),
    ],
)
def test_roles(api: Api, role: Role, method: str, path: str, status: int) -> None:
    body = b"[]" if method == "POST" else None
    answer = api.client.request(method, path, content=body, headers=auth(role))
    assert answer.status_code == status, answer.text


def test_reconciliation_balances_after_a_round(api: Api) -> None:
    post(api, opening())
    report = api.client.get("/v1/reconciliation", headers=auth("read_only")).json()
    assert report["balanced"] is True, report
    assert api.client.get("/v1/reconciliation").status_code == 401


# --- reads ---------------------------------------------------------------------------------------


def test_meters_and_an_unknown_meter(api: Api) -> None:
    ids = [m["meter_id"] for m in api.meters()]
    assert ids[0] == "tcp-progressive"
    assert len(ids) == 5
    answer = api.client.get("/v1/meters/no-such", headers=auth("read_only"))
    assert answer.status_code == 404
    assert "unknown meter 'no-such'" in answer.json()["error"]


def test_awards_come_from_the_log_with_positions_and_page(api: Api) -> None:
    post(api, full_round(AKQ_SPADES))
    post(api, full_round(AKQ_SPADES, round_id="R2", start=7))
    answer = api.client.get("/v1/awards?limit=1", headers=auth("read_only")).json()
    [first] = answer["awards"]
    assert (first["kind"], first["seat"], first["wager"]) == ("progressive", 1, "progressive")
    assert first["amount"] == "1000.14"
    record = api.client.get(
        f"/v1/log?after={first['position'] - 1}&limit=1", headers=auth("supervisor")
    )
    assert record.json()["records"][0]["event"]["type"] == "progressive_hit"
    rest = api.client.get(f"/v1/awards?after={answer['next_after']}", headers=auth("read_only"))
    [second] = rest.json()["awards"]
    assert second["round_id"] == "R2"
    assert second["amount"] == "1000.14"  # the meter reset to its reseed, then grew 14 cents
    assert rest.json()["next_after"] == rest.json()["head"] == api.log.head()


def test_the_log_reads_in_pages(api: Api) -> None:
    post(api, full_round())
    head = api.log.head()
    seen: list[int] = []
    after = 0
    while after < head:
        page = api.client.get(f"/v1/log?after={after}&limit=4", headers=auth("read_only")).json()
        assert len(page["records"]) <= 4
        seen += [r["position"] for r in page["records"]]
        after = page["next_after"]
    assert seen == list(range(1, head + 1))
    assert (
        api.client.get(f"/v1/log?after={head}", headers=auth("read_only")).json()["records"] == []
    )


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=1001", "after=-1", "limit=abc", "after=1.5", "limit=%C2%B2"]
)
def test_a_bad_page_query_is_400(api: Api, query: str) -> None:
    for path in ("/v1/log", "/v1/awards", "/v1/rejections"):
        answer = api.client.get(f"{path}?{query}", headers=auth("read_only"))
        assert answer.status_code == 400
        assert "query:" in answer.json()["error"]


def test_hits_filter_by_status(api: Api) -> None:
    post(api, full_round(AKQ_SPADES))
    all_hits = api.client.get("/v1/hits", headers=auth("read_only")).json()["hits"]
    assert [h["status"] for h in all_hits] == ["pending_validation"]
    paid = api.client.get("/v1/hits?status=paid", headers=auth("read_only")).json()["hits"]
    assert paid == []
    assert api.client.get("/v1/hits?status=lost", headers=auth("read_only")).status_code == 400


# --- service routes ------------------------------------------------------------------------------


def test_health_and_readiness(api: Api) -> None:
    assert api.client.get("/healthz").json() == {"status": "ok"}
    ready = api.client.get("/readyz")
    assert ready.status_code == 200
    head = api.log.head()
    not_started = {"state": "not_started", "position": None, "at": "", "reason": ""}
    assert ready.json() == {"status": "ready", "position": head, "full_check": not_started}
    assert run_check(api.controller, api.log, threading.Event())
    check = api.client.get("/readyz").json()["full_check"]
    assert (check["state"], check["position"], check["reason"]) == ("passed", head, "")
    api.log.close()
    not_ready = api.client.get("/readyz")
    assert not_ready.status_code == 503
    assert "event log cannot be read" in not_ready.json()["reason"]


def test_on_startup_runs_as_the_server_starts_before_a_request(api: Api) -> None:
    """`jackpot serve` starts the background full check there (`streams.cli.serve`)."""
    calls: list[str] = []
    app = create_app(api.controller, token_store(), on_startup=lambda: calls.append("started"))
    assert calls == []
    with TestClient(app) as client:
        assert calls == ["started"]
        assert client.get("/healthz").status_code == 200
    assert calls == ["started"]


def test_metrics_show_the_meters_after_ingest(api: Api) -> None:
    post(api, full_round())
    text = api.client.get("/metrics").text
    assert 'jackpot_meter_amount_dollars{meter="tcp-progressive"} 1000.14' in text
    assert 'jackpot_contributions_total{meter="tcp-progressive"} 1.0' in text
    assert 'jackpot_ingest_events_total{status="accepted"} 6.0' in text
    assert "jackpot_ingest_seconds_count 1.0" in text


def test_unknown_routes_and_methods_answer_json(api: Api) -> None:
    missing = api.client.get("/v2/nothing")
    assert (missing.status_code, missing.json()) == (404, {"error": "Not Found"})
    wrong = api.client.delete("/v1/meters", headers=auth("supervisor"))
    assert wrong.status_code == 405
    assert "error" in wrong.json()
