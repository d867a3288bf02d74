"""Issue 15, findings 3, 4 and 5: bounded configuration, bounded corrections, rates within 100%,
and two people for big money (dual control). Each refusal is an answer with a reason, never a
500, and what the core refuses is recorded in the log.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.model.events import HitPaid, MeterCorrected
from streams.codec import decode
from tests.streams.http.support import (
    AKQ_SPADES,
    CONFIG,
    SECOND_SUPERVISOR,
    TOKENS,
    Api,
    auth,
    full_round,
    open_api,
)

CORRECT = "/v1/meters/tcp-progressive/corrections"
TEXT = CONFIG.read_text(encoding="utf-8")
SEED = 'seed = 1000\nreseed = 1000\nprimary_rate = "14%"'


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    with open_api(tmp_path) as running:
        yield running


def _configure(api: Api, text: str) -> tuple[int, str]:
    answer = api.client.post("/v1/config", json={"toml": text}, headers=auth("supervisor"))
    return answer.status_code, str(answer.json().get("error", ""))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a = " + "[" * 50_000 + "]" * 50_000, "nested less deeply"),  # RecursionError before
        ("a = " + "{b = " * 20_000 + "1" + "}" * 20_000, "nested less deeply"),
        (TEXT.replace(SEED, SEED.replace("seed = 1000", 'seed = "1e5000"')), "progressives"),
        (TEXT.replace(SEED, SEED.replace("seed = 1000", 'seed = "1e6000000"')), "seed"),
        (TEXT.replace('primary_rate = "14%"', 'primary_rate = "1e6000000%"'), "primary_rate"),
        (TEXT.replace("seed = 1000\n", "seed = 100000000\n", 1), "up to 10000000"),
        (TEXT.replace('"1.00"\nmeters', '"999999999999.99"\nmeters', 1), "at most"),
    ],
    ids=[
        "arrays-50000-deep",
        "tables-20000-deep",
        "seed-1e5000",
        "seed-1e6000000",
        "rate-exponent",
        "seed-over-bound",
        "unit-over-bound",
    ],
)
def test_a_configuration_out_of_bounds_is_refused_not_a_500(api: Api, text: str, why: str) -> None:
    before = api.meters()
    status, reason = _configure(api, text)
    assert status == 409, reason
    assert why in reason
    assert api.meters() == before
    assert api.rejections()[-1]["event_type"] == "ActivateConfig"


def test_primary_plus_reserve_over_100_percent_is_refused(api: Api) -> None:
    # Finding 5: primary 90% + reserve 90% made a $1 wager add $1.80.
    text = TEXT.replace('primary_rate = "14%"', 'primary_rate = "90%"\nreserve_rate = "90%"')
    status, reason = _configure(api, text)
    assert status == 409
    assert "at most 100% of the wager" in reason
    at_limit = TEXT.replace('primary_rate = "14%"', 'primary_rate = "90%"\nreserve_rate = "10%"')
    assert _configure(api, at_limit)[0] == 200


def _correct(api: Api, body: dict[str, str], *, second: str | None = None) -> tuple[int, str]:
    headers = auth("supervisor")
    if second is not None:
        headers["Second-Authorization"] = f"Bearer {second}"
    answer = api.client.post(CORRECT, json=body, headers=headers)
    return answer.status_code, str(answer.json().get("error", ""))


def test_an_unbounded_correction_is_refused_even_by_two(api: Api) -> None:
    # Finding 4: +999,999,999,999.99 was accepted.
    huge = {"amount": "999999999999.99", "reason": "fat finger"}
    status, reason = _correct(api, huge, second=SECOND_SUPERVISOR[1])
    assert status == 409
    assert "999999999.99, the event contract's bound" in reason
    assert api.meters()[0]["amount"] == "1000.00"


@pytest.mark.parametrize(
    ("body", "status", "why"),
    [
        ({"amount": "0.00", "reason": "nothing"}, 409, "a correction of zero"),
        ({"amount": "0.00", "reserve": "0.00", "reason": "nothing"}, 409, "a correction of zero"),
        ({"amount": "1.00", "reason": "\u200b"}, 400, "visible text"),
        ({"amount": "1.00", "reason": "\u200b\u200d\u2060 "}, 400, "visible text"),
    ],
)
def test_a_correction_says_something_and_moves_something(
    api: Api, body: dict[str, str], status: int, why: str
) -> None:
    answered, reason = _correct(api, body)
    assert answered == status
    assert why in reason
    assert api.meters()[0]["amount"] == "1000.00"


def test_a_correction_over_the_cap_needs_a_second_different_supervisor(api: Api) -> None:
    big = {"amount": "1000.01", "reason": "sign board replaced"}  # cap $1,000.00 in the example
    status, reason = _correct(api, big)
    assert status == 409
    assert "needs a second, different supervisor" in reason
    assert _correct(api, big, second=TOKENS["supervisor"][1])[0] == 403  # the caller again
    assert _correct(api, big, second=TOKENS["read_only"][1])[0] == 403
    assert _correct(api, {"amount": "1000.00", "reason": "at the cap"})[0] == 200
    assert _correct(api, big, second=SECOND_SUPERVISOR[1])[0] == 200
    corrected = [decode(r.payload) for r in api.log.read()]
    last = [e for e in corrected if isinstance(e, MeterCorrected)][-1]
    assert (last.by, last.second_by) == (TOKENS["supervisor"][0], SECOND_SUPERVISOR[0])


def test_a_big_award_is_paid_by_someone_other_than_its_validator(api: Api) -> None:
    # Finding 4: the same supervisor validated and paid. 100% of $1,000.14 (649a.12(e)(1)) is
    # at or above dual_control_from ($1,000.00 in the example).
    api.client.post("/v1/events", json=full_round(AKQ_SPADES), headers=auth("table_device"))
    [hit] = api.client.get("/v1/hits", headers=auth("read_only")).json()["hits"]
    path = f"/v1/hits/{hit['hit_id']}"
    assert api.client.post(f"{path}/validate", headers=auth("supervisor")).status_code == 200
    same = api.client.post(f"{path}/pay", headers=auth("supervisor"))
    assert same.status_code == 409
    assert "dual_control_from" in same.json()["error"]
    assert api.client.post(f"{path}/pay", headers=auth("supervisor_b")).status_code == 200
    [paid] = [e for e in (decode(r.payload) for r in api.log.read()) if isinstance(e, HitPaid)]
    assert (paid.validated_by, paid.by) == (TOKENS["supervisor"][0], SECOND_SUPERVISOR[0])
