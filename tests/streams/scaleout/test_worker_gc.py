"""Both ways to start a worker (``jackpot kafka worker`` and ``python -m
streams.scaleout.worker``, which the bench's "kafka" row and the integration tests run) serve
with the collector settled (`streams.process.settled_gc`, set in `streams.scaleout.worker.run`)
and give it back afterwards."""

from __future__ import annotations

import gc
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from streams.cli import main as cli_main
from streams.process import YOUNG
from streams.scaleout import worker as worker_module

ARGS = ["--bootstrap", "fake:9092", "--prefix", "p", "--config", "floor.toml"]


class _Worker:
    """Stands in for `worker_module.Worker`: records the collector's threshold while serving."""

    seen: ClassVar[list[int]] = []

    def __init__(self, settings: Any) -> None:
        self.transactional_id = "p-controller-test"
        self.metrics = None

    def stop(self, signum: int, frame: Any) -> None:
        """The signal handler the entry installs (never called here)."""

    def run(self) -> int:
        _Worker.seen.append(gc.get_threshold()[0])
        return 0


def _entries(tmp_path: Path) -> dict[str, Callable[[], int]]:
    return {
        "module": lambda: worker_module.main(ARGS),
        "cli": lambda: cli_main(["kafka", "worker", *ARGS, "--data-dir", str(tmp_path)]),
    }


@pytest.mark.parametrize("entry", ["module", "cli"])
def test_each_entry_serves_with_the_collector_settled(
    entry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_module, "check_access", lambda *_: None)
    monkeypatch.setattr(worker_module, "activate", lambda _: None)
    monkeypatch.setattr(worker_module, "Worker", _Worker)
    monkeypatch.setattr(signal, "signal", lambda *_: None)
    _Worker.seen = []
    before = gc.get_threshold()
    assert _entries(tmp_path)[entry]() == 0
    assert _Worker.seen == [YOUNG]
    assert gc.get_threshold() == before
