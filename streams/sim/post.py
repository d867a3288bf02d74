"""Posting table events as a device must: retry until acknowledged, always with the same bytes.

A device that sent a batch and got no answer (the connection reset, a timeout, a 5xx while the
service restarts) cannot know whether the batch was applied. It must send it again, unchanged: the
service answers events it already holds as ``duplicate`` and applies nothing twice, while a batch
rebuilt with new ids (or re-encoded differently) would be counted again or refused as a reused id.
So the body is encoded once and that exact body is re-sent until a 200 arrives.

What is retried: transport failures (refused or reset connections, read and write timeouts), 5xx
answers and 429. What is not: any other 4xx, since sending the same refused body again cannot help
(a bad token, a body over the limit); that raises `AdapterError` with the service's reason. Waits
between tries grow exponentially with full jitter up to ``max_wait`` (so devices that lost the
service together do not return in lockstep); after ``retry_for`` seconds without an answer the
poster gives up with `StoreUnavailable` and the batch must be kept for later, never dropped.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import httpx

from controller.model.errors import AdapterError, StoreUnavailable

RETRYABLE_STATUS: Final = frozenset({429, 500, 502, 503, 504})
PATH: Final = "/v1/events"


@dataclass(slots=True)
class PostStats:
    """What a poster saw; the fault test reports these."""

    batches: int = 0  # batches acknowledged
    attempts: int = 0  # requests sent, first tries and retries
    retries: int = 0  # requests that re-sent a batch after a failed try
    transport_errors: int = 0
    statuses: Counter[int] = field(default_factory=Counter)  # HTTP status of every answer
    results: Counter[str] = field(default_factory=Counter)  # accepted, duplicate, rejected
    duplicates_after_retry: int = 0  # "duplicate" answers to a re-sent batch: applied before


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How long to keep trying and how long to wait between tries (seconds)."""

    retry_for: float = 300.0
    first_wait: float = 0.05
    max_wait: float = 2.0

    def wait(self, retry: int, rng: random.Random) -> float:
        """Full jitter: uniform up to the capped exponential step (``retry`` counts from 0)."""
        return rng.uniform(0.0, min(self.max_wait, self.first_wait * 2.0**retry))


class RetryingPoster:
    """Posts batches to ``POST /v1/events`` on ``client`` (base URL and token set on it)."""

    def __init__(
        self,
        client: httpx.Client,
        policy: RetryPolicy | None = None,
        *,
        rng: random.Random | None = None,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._policy = policy or RetryPolicy()
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not a game outcome
        self._sleep = sleep
        self._monotonic = monotonic
        self.stats = PostStats()

    def post(self, events: Sequence[dict[str, object]]) -> dict[str, Any]:
        """The service's answer to ``events``, once it gave one (see the module doc)."""
        body = json.dumps(list(events), separators=(",", ":")).encode()
        deadline = self._monotonic() + self._policy.retry_for
        failure, tries = "", 0
        while tries == 0 or self._monotonic() < deadline:
            if tries:
                self.stats.retries += 1
            answer, failure = self._attempt(body)
            if answer is not None:
                self._count(answer, retried=tries > 0)
                return answer
            self._sleep(self._policy.wait(tries, self._rng))
            tries += 1
        msg = (
            f"no answer from {self._client.base_url} after {tries} tries in "
            f"{self._policy.retry_for:g}s (last: {failure}); keep the batch and send it again later"
        )
        raise StoreUnavailable(msg)

    def _attempt(self, body: bytes) -> tuple[dict[str, Any] | None, str]:
        """The answer, or None and why this try failed (retryable); raises if it must not retry."""
        self.stats.attempts += 1
        headers = {"Content-Type": "application/json"}
        try:
            response = self._client.post(PATH, content=body, headers=headers)
        except httpx.TransportError as exc:
            self.stats.transport_errors += 1
            return None, f"{type(exc).__name__}: {exc}"
        self.stats.statuses[response.status_code] += 1
        if response.status_code == 200:
            answer: dict[str, Any] = response.json()
            return answer, ""
        if response.status_code in RETRYABLE_STATUS:
            return None, f"HTTP {response.status_code} {response.text[:200]}"
        msg = f"the service refused the batch: HTTP {response.status_code} {response.text[:200]}"
        raise AdapterError(msg)

    def _count(self, answer: dict[str, Any], *, retried: bool) -> None:
        self.stats.batches += 1
        statuses = [str(result["status"]) for result in answer["results"]]
        self.stats.results.update(statuses)
        if retried:
            self.stats.duplicates_after_retry += statuses.count("duplicate")
