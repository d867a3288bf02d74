"""A worker exits for its supervisor after `RETRIES` failed loops *in a row*: a loop that
committed a batch before it failed starts the count again. Every rebalance can fence a batch in
flight (its offsets carry the group's old generation), so in the rebalance test a worker that
saw five rebalances over its life exited ('5 failed batches in a row') though it had made
progress between them."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from streams.scaleout import worker as worker_module
from streams.scaleout.tx_failures import Fenced
from streams.scaleout.worker import EXIT_FAILED, RETRIES, Worker


def scripted(outcomes: list[bool], monkeypatch: pytest.MonkeyPatch) -> Worker:
    """A worker whose loops fail one after another; ``outcomes``: did each commit a batch
    first (after the list, the worker is stopped)."""
    worker = object.__new__(Worker)
    worker.stopping, worker.progressed = False, False
    steps: Iterator[bool] = iter(outcomes)

    def serve_once() -> None:
        try:
            worker.progressed = next(steps)
        except StopIteration:
            worker.stopping = True
            return
        raise Fenced("fenced: ILLEGAL_GENERATION")

    monkeypatch.setattr(worker, "_serve_once", serve_once)
    monkeypatch.setattr(worker_module, "time", SimpleNamespace(sleep=lambda seconds: None))
    return worker


def test_failures_without_progress_end_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    worker = scripted([False] * RETRIES + [False], monkeypatch)
    assert worker.run() == EXIT_FAILED


def test_failures_between_committed_batches_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    worker = scripted([True] * (3 * RETRIES), monkeypatch)
    assert worker.run() == 0


def test_the_count_starts_again_after_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop that committed and then failed counts as the first of the new row."""
    almost = [False] * (RETRIES - 1)
    assert scripted([*almost, True, *almost[1:]], monkeypatch).run() == 0
    assert scripted([*almost, True, *almost], monkeypatch).run() == EXIT_FAILED
