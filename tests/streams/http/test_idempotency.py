"""Issue 15, finding 1: a retried operator call is applied once, even after a restart.

Every state-changing operator call carries an ``Idempotency-Key`` (IETF httpapi draft): the same
key and request get the first answer; the same key with another request is refused (422); a call
without a key is refused (400). The key is in the logged event, so a restarted service knows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from controller.model.events import MeterCorrected
from streams.codec import decode
from tests.streams.http.support import AKQ_SPADES, CONFIG, Api, auth, full_round, open_api

CORRECT = "/v1/meters/tcp-progressive/corrections"
PLUS_ONE = {"amount": "1.00", "reason": "sign credit owed"}


def _sup(key: str) -> dict[str, str]:
    return {**auth("supervisor"), "Idempotency-Key": key}


def _amount(api: Api) -> object:
    return next(m["amount"] for m in api.meters() if m["meter_id"] == "tcp-progressive")


def _corrections(api: Api) -> list[MeterCorrected]:
    events = [decode(r.payload) for r in api.log.read()]
    return [e for e in events if isinstance(e, MeterCorrected)]


def test_a_retried_correction_is_applied_once_with_the_first_answer(tmp_path: Path) -> None:
    with open_api(tmp_path) as api:
        first = api.client.post(CORRECT, json=PLUS_ONE, headers=_sup("k-1"))
        again = api.client.post(CORRECT, json=PLUS_ONE, headers=_sup("k-1"))
        assert (first.status_code, again.status_code) == (200, 200)
        assert again.json()["command_id"] == first.json()["command_id"]
        assert again.headers["Idempotent-Replayed"] == "true"
        assert "Idempotent-Replayed" not in first.headers
        assert _amount(api) == "1001.00"  # not 1002.00
        [logged] = _corrections(api)
        assert (logged.idempotency_key, len(logged.request_digest)) == ("k-1", 64)


def test_the_key_survives_a_restart(tmp_path: Path) -> None:
    with open_api(tmp_path) as api:
        first = api.client.post(CORRECT, json=PLUS_ONE, headers=_sup('"k-2"'))
        assert first.status_code == 200
    with open_api(tmp_path) as restarted:  # a new process's state, rebuilt from the same log
        again = restarted.client.post(CORRECT, json=PLUS_ONE, headers=_sup('"k-2"'))
        assert again.status_code == 200
        assert again.json()["command_id"] == first.json()["command_id"]
        assert _amount(restarted) == "1001.00"
        assert len(_corrections(restarted)) == 1


def test_the_same_key_for_another_request_is_refused_and_recorded(api_path: Path) -> None:
    with open_api(api_path) as api:
        assert api.client.post(CORRECT, json=PLUS_ONE, headers=_sup("k-3")).status_code == 200
        other = {"amount": "2.00", "reason": "sign credit owed"}
        answer = api.client.post(CORRECT, json=other, headers=_sup("k-3"))
        assert answer.status_code == 422
        assert "already used for a different request" in answer.json()["error"]
        assert _amount(api) == "1001.00"
        assert "already used" in str(api.rejections()[-1]["reason"])


def test_a_refusal_is_replayed_as_the_first_refusal(api_path: Path) -> None:
    with open_api(api_path) as api:
        too_far = {"amount": "-1000.01", "reason": "too far"}
        first = api.client.post(CORRECT, json=too_far, headers=_sup("k-4"))
        again = api.client.post(CORRECT, json=too_far, headers=_sup("k-4"))
        assert first.status_code == again.status_code == 409
        assert first.json() == again.json()
        assert len(api.rejections()) == 1  # the refusal is recorded once


def test_another_supervisor_may_use_the_same_key(api_path: Path) -> None:
    """Keys are the caller's own: the key names a command of that caller only."""
    with open_api(api_path) as api:
        assert api.client.post(CORRECT, json=PLUS_ONE, headers=_sup("k-5")).status_code == 200
        second = {**auth("supervisor_b"), "Idempotency-Key": "k-5"}
        assert api.client.post(CORRECT, json=PLUS_ONE, headers=second).status_code == 200
        assert _amount(api) == "1002.00"


def test_validate_and_pay_retries_apply_once(api_path: Path) -> None:
    with open_api(api_path) as api:
        api.client.post("/v1/events", json=full_round(AKQ_SPADES), headers=auth("table_device"))
        [hit] = api.client.get("/v1/hits", headers=auth("read_only")).json()["hits"]
        path = f"/v1/hits/{hit['hit_id']}"
        for _ in range(2):
            assert api.client.post(f"{path}/validate", headers=_sup("v-1")).status_code == 200
        payer = {**auth("supervisor_b"), "Idempotency-Key": "p-1"}
        for _ in range(2):
            answer = api.client.post(f"{path}/pay", headers=payer)
            assert answer.status_code == 200, answer.json()
        kinds = [decode(r.payload).TYPE for r in api.log.read()]
        assert (kinds.count("hit_validated"), kinds.count("hit_paid")) == (1, 1)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (CORRECT, PLUS_ONE),
        ("/v1/hits/tcp-1/R1/7/progressive/seat1/validate", None),
        ("/v1/hits/tcp-1/R1/7/progressive/seat1/pay", None),
        ("/v1/config", {"toml": CONFIG.read_text(encoding="utf-8")}),
    ],
)
@pytest.mark.parametrize("key", [None, "", "has space", "x" * 256])
def test_a_state_changing_call_without_a_valid_key_is_refused(
    api_path: Path, path: str, body: object, key: str | None
) -> None:
    with open_api(api_path) as api:
        bare = TestClient(api.client.app)  # without the helper that adds a key
        headers = auth("supervisor") if key is None else _sup(key)
        before = api.log.head()
        answer = bare.post(path, json=body, headers=headers)
        assert answer.status_code == 400
        assert "Idempotency-Key is required" in answer.json()["error"]
        assert api.log.head() == before


@pytest.fixture
def api_path(tmp_path: Path) -> Path:
    return tmp_path
