"""Supervisor flows over HTTP: reasoned meter corrections, and a hit's life (validate, then pay).

The ``by`` recorded is the token's name; what the core refuses is 409 with its reason and is in
the log; what the edge cannot read is 400 and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from controller.model.events import MeterCorrected
from streams.codec import decode
from tests.streams.http.support import (
    AKQ_SPADES,
    CONFIG,
    TOKENS,
    Api,
    auth,
    full_round,
    open_api,
    opening,
)

HIT_PREFIX, HIT_SUFFIX = "tcp-1/R1/", "/progressive/seat1"
CORRECT = "/v1/meters/tcp-progressive/corrections"


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    with open_api(tmp_path) as running:
        yield running


def supervisor_post(
    api: Api, path: str, body: object | None = None
) -> tuple[int, dict[str, object]]:
    answer = api.client.post(path, json=body, headers=auth("supervisor"))
    result: dict[str, object] = answer.json()
    return answer.status_code, result


def test_a_reasoned_correction_moves_the_meter_and_says_who(api: Api) -> None:
    body = {"amount": "-12.34", "reserve": "0.00", "reason": "sign test credit reversed"}
    status, answer = supervisor_post(api, CORRECT, body)
    assert status == 200, answer
    assert answer["meter"] == {
        "meter_id": "tcp-progressive",
        "amount": "987.66",
        "reserve": "0.00",
        "overflow": "0.00",
        "contributed": "0.00",
        "paid": "0.00",
        "hits": 0,
    }
    corrected = decode(list(api.log.read())[-1].payload)
    assert isinstance(corrected, MeterCorrected)
    assert corrected.by == TOKENS["supervisor"][0]
    assert corrected.reason == "sign test credit reversed"
    assert corrected.amount_delta_sub == -1_234_000_000


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"amount": "-1.00"}, "reason must be"),
        ({"amount": "-1.00", "reason": "   "}, "reason must be"),
        ({"amount": "-1.00", "reason": "x" * 501}, "reason must be"),
        ({"reason": "why"}, "amount is required"),
        ({"amount": "-1.5", "reason": "why"}, "amount must be"),
        ({"amount": -1, "reason": "why"}, "amount must be"),
        ({"amount": "1.00", "reserve": "+1.00", "reason": "why"}, "reserve must be"),
        ({"amount": "1.00", "reason": "why", "by": "someone else"}, "unknown field 'by'"),
        (["amount"], "expected a JSON object"),
    ],
)
def test_a_correction_the_edge_cannot_read_is_400_and_changes_nothing(
    api: Api, body: object, expected: str
) -> None:
    before, head = api.meters(), api.log.head()
    status, answer = supervisor_post(api, CORRECT, body)
    assert status == 400
    assert expected in str(answer["error"])
    assert (api.meters(), api.log.head()) == (before, head)


def test_a_correction_the_core_refuses_is_409_and_recorded(api: Api) -> None:
    before = api.meters()
    status, answer = supervisor_post(api, CORRECT, {"amount": "-1000.01", "reason": "too far"})
    assert status == 409
    assert "negative" in str(answer["error"])
    status, answer = supervisor_post(
        api, "/v1/meters/no-such/corrections", {"amount": "1.00", "reason": "typo"}
    )
    assert (status, answer["error"]) == (409, "unknown meter 'no-such'")
    assert [r["event_type"] for r in api.rejections()] == ["CorrectMeter", "CorrectMeter"]
    assert api.meters() == before


def test_an_oversized_correction_is_413(api: Api) -> None:
    status, answer = supervisor_post(api, CORRECT, {"amount": "1.00", "reason": "x" * 20_000})
    assert status == 413
    assert "over the limit" in str(answer["error"])


def test_a_hit_is_validated_then_paid_never_paid_first(api: Api) -> None:
    api.client.post("/v1/events", json=full_round(AKQ_SPADES), headers=auth("table_device"))
    [listed] = api.client.get("/v1/hits", headers=auth("read_only")).json()["hits"]
    hit = listed["hit_id"]
    assert hit.startswith(HIT_PREFIX)  # table/round/settlement seq/wager/winner
    assert hit.endswith(HIT_SUFFIX)
    status, answer = supervisor_post(api, f"/v1/hits/{hit}/pay")
    assert status == 409
    assert "must be validated before it is paid" in str(answer["error"])
    status, answer = supervisor_post(api, f"/v1/hits/{hit}/validate")
    assert status == 200
    assert answer["hit"] == {
        "hit_id": hit,
        "meter_id": "tcp-progressive",
        "amount": "1000.14",
        "status": "validated",
    }
    status, answer = supervisor_post(api, f"/v1/hits/{hit}/validate")
    assert (status, "not pending validation" in str(answer["error"])) == (409, True)
    # dual control (example: dual_control_from = "1000.00"): a second supervisor pays
    paid_by_b = api.client.post(f"/v1/hits/{quote(hit, safe='')}/pay", headers=auth("supervisor_b"))
    status, answer = paid_by_b.status_code, paid_by_b.json()  # %2F works too
    assert status == 200
    assert answer["hit"]["status"] == "paid"
    paid = api.client.get("/v1/hits?status=paid", headers=auth("read_only")).json()["hits"]
    assert [h["hit_id"] for h in paid] == [hit]
    assert [r["event_type"] for r in api.rejections()] == ["PayHit", "ValidateHit"]


def test_an_unknown_hit_is_409(api: Api) -> None:
    status, answer = supervisor_post(api, "/v1/hits/tcp-9/R1/x/seat1/validate")
    assert (status, answer["error"]) == (409, "unknown hit 'tcp-9/R1/x/seat1'")


# --- configuration -------------------------------------------------------------------------------


def test_a_configuration_change_waits_for_the_safe_point_and_says_who(api: Api) -> None:
    # A live meter's rate change (14% -> 15%) waits while tcp-1 is mid-round, then applies when
    # the round ends; the log records the supervisor's name (industry practice, rules README).
    text = CONFIG.read_text().replace('primary_rate = "14%"', 'primary_rate = "15%"')
    api.client.post("/v1/events", json=opening(), headers=auth("table_device"))
    status, answer = supervisor_post(api, "/v1/config", {"toml": text, "source": "rates.toml"})
    assert status == 200, answer
    assert (answer["status"], answer["active_version"]) == ("scheduled", 1)
    assert "tcp-progressive" in answer["waiting_for"]  # type: ignore[operator]
    rest = full_round()[4:]
    api.client.post("/v1/events", json=rest, headers=auth("table_device"))
    assert api.controller.state.config_version == 2
    activated = [
        decode(r.payload) for r in api.controller.log.read() if b"config_activated" in r.payload
    ]
    assert [getattr(e, "by", None) for e in activated] == ["system", TOKENS["supervisor"][0]]


def test_a_broken_configuration_is_refused_with_its_reason(api: Api) -> None:
    status, answer = supervisor_post(api, "/v1/config", {"toml": "[policy", "source": "x"})
    assert status == 409
    assert "configuration refused" in str(answer["error"])
    assert api.controller.state.config_version == 1


def test_configuration_is_for_supervisors_only(api: Api) -> None:
    answer = api.client.post("/v1/config", json={"toml": "x"}, headers=auth("table_device"))
    assert answer.status_code == 403
