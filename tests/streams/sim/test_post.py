"""The retrying poster: an unanswered batch is re-sent byte for byte until acknowledged.

The service is an `httpx.MockTransport` playing a script of answers (or failures); sleeps and the
clock are fakes, so the tests take no time and can check the waits.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from controller.model.errors import AdapterError, StoreUnavailable
from streams.sim.post import RetryingPoster, RetryPolicy

Step = Callable[[httpx.Request], httpx.Response]
EVENTS: list[dict[str, object]] = [
    {"event_id": "tcp-1:1", "type": "round_opened"},
    {"event_id": "tcp-1:2", "type": "wager_placed"},
]


def answer(*statuses: str) -> Step:
    def step(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)
        results = [
            {"event_id": e["event_id"], "status": s, "reason": ""}
            for e, s in zip(sent, statuses, strict=True)
        ]
        return httpx.Response(200, json={"results": results})

    return step


def status(code: int) -> Step:
    return lambda request: httpx.Response(code, json={"error": f"status {code}"})


def fail(error: type[httpx.TransportError]) -> Step:
    def step(request: httpx.Request) -> httpx.Response:
        raise error("simulated", request=request)

    return step


class Service:
    """Plays ``steps`` in order, one per request, and keeps every body it was sent."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.bodies: list[bytes] = []
        self.waits: list[float] = []
        self.now = 0.0

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(request.content)
        return self.steps.pop(0)(request)

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds

    def poster(self, policy: RetryPolicy | None = None) -> RetryingPoster:
        client = httpx.Client(
            base_url="http://device.test", transport=httpx.MockTransport(self.handle)
        )
        return RetryingPoster(
            client, policy, rng=random.Random(1), sleep=self.sleep, monotonic=lambda: self.now
        )


def test_a_first_answer_is_returned_without_a_retry() -> None:
    service = Service(answer("accepted", "accepted"))
    poster = service.poster()
    result: dict[str, Any] = poster.post(EVENTS)
    assert [r["status"] for r in result["results"]] == ["accepted", "accepted"]
    assert (poster.stats.attempts, poster.stats.retries, service.waits) == (1, 0, [])
    assert json.loads(service.bodies[0]) == EVENTS


@pytest.mark.parametrize(
    "failure",
    [
        fail(httpx.ConnectError),
        fail(httpx.ReadTimeout),
        fail(httpx.RemoteProtocolError),
        status(503),
        status(500),
        status(429),
    ],
)
def test_a_failed_try_is_retried_with_the_same_bytes(failure: Step) -> None:
    service = Service(failure, failure, answer("duplicate", "accepted"))
    poster = service.poster()
    poster.post(EVENTS)
    assert len(service.bodies) == 3
    assert service.bodies[0] == service.bodies[1] == service.bodies[2]
    assert (poster.stats.attempts, poster.stats.retries) == (3, 2)
    assert poster.stats.duplicates_after_retry == 1  # applied by a try whose answer was lost
    assert poster.stats.results == {"duplicate": 1, "accepted": 1}


def test_waits_grow_with_full_jitter_up_to_the_cap() -> None:
    policy = RetryPolicy(retry_for=1_000.0, first_wait=0.1, max_wait=0.5)
    service = Service(*[fail(httpx.ConnectError)] * 8, answer("accepted", "accepted"))
    service.poster(policy).post(EVENTS)
    caps = [0.1, 0.2, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5]
    assert len(service.waits) == len(caps)
    assert all(0.0 <= w <= cap for w, cap in zip(service.waits, caps, strict=True))
    assert len(set(service.waits)) == len(caps)  # jittered, not a fixed schedule


@pytest.mark.parametrize("code", [400, 401, 403, 413])
def test_a_refusal_is_not_retried(code: int) -> None:
    service = Service(status(code))
    with pytest.raises(AdapterError, match=f"refused the batch: HTTP {code}"):
        service.poster().post(EVENTS)
    assert len(service.bodies) == 1


def test_it_gives_up_after_retry_for_and_says_to_keep_the_batch() -> None:
    policy = RetryPolicy(retry_for=3.0, first_wait=1.0, max_wait=1.0)
    service = Service(*[fail(httpx.ConnectError)] * 100)
    with pytest.raises(StoreUnavailable, match="keep the batch"):
        service.poster(policy).post(EVENTS)
    assert 3.0 <= service.now < 4.0  # it kept trying for retry_for, then stopped
    assert len(service.bodies) == len(service.waits) > 3
