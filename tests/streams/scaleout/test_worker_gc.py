"""``python -m streams.scaleout.worker`` (the bench's "kafka" row and the integration tests run
it) runs the worker under the process setting ``jackpot kafka worker`` gives it
(`streams.process.settled_gc`), and gives the collector back afterwards."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from streams.process import YOUNG
from streams.scaleout import worker as worker_module


def test_the_module_entry_runs_the_worker_with_the_collector_settled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []

    def run(settings: Any) -> int:
        seen.append(gc.get_threshold()[0])
        return 0

    monkeypatch.setattr(worker_module, "run", run)
    before = gc.get_threshold()
    args = ["--bootstrap", "fake:9092", "--prefix", "p", "--config", "floor.toml"]
    assert worker_module.main(args) == 0
    assert seen == [YOUNG]
    assert gc.get_threshold() == before
