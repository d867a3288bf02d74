"""`streams.process.settle_gc`: what start-up built leaves the collector's view, a young
collection waits for `YOUNG` allocations, cycles made after it are still collected, and
`unsettle_gc` gives the process back its settings."""

from __future__ import annotations

import argparse
import gc
import json
import weakref
from pathlib import Path
from typing import Any

import pytest

from streams.cli import ingest, replay
from streams.embedded.engine import EmbeddedController
from streams.process import YOUNG, settle_gc, unsettle_gc

EXAMPLE = Path(__file__).parents[2] / "examples" / "pa-three-card-poker.toml"


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_settle_freezes_raises_the_young_threshold_and_unsettle_undoes_it() -> None:
    start = gc.get_threshold()
    built = [_Node() for _ in range(10)]  # start-up's state
    before = settle_gc()
    try:
        assert before == start
        assert gc.get_threshold() == (YOUNG, start[1], start[2])
        assert gc.get_freeze_count() >= len(built)
        # a cycle made after start-up is still found by a collection
        first, second = _Node(), _Node()
        first.other, second.other = second, first
        gone = weakref.ref(first)
        del first, second
        gc.collect()
        assert gone() is None
    finally:
        unsettle_gc(before)
    assert gc.get_threshold() == start
    assert gc.get_freeze_count() == 0


def test_a_command_run_in_process_gives_the_collector_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`jackpot replay` settles the collector for its fold only (`settled_gc`): a test or a host
    calling its handler keeps its own thresholds and nothing of its stays frozen."""
    start, frozen = gc.get_threshold(), gc.get_freeze_count()
    events = tmp_path / "events.jsonl"
    events.write_bytes(b"")
    args = argparse.Namespace(config=EXAMPLE, events=events, reference=False)
    assert replay.handle(args) == 0
    assert json.loads(capsys.readouterr().out)["meters"]  # it ran: the seeded meters
    assert gc.get_threshold() == start
    assert gc.get_freeze_count() == frozen


def test_ingest_runs_its_lines_settled_and_gives_the_collector_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`jackpot ingest` is a batch job like `jackpot replay`: its lines are decided with the
    collector settled (after the engine started), and the process gets its settings back."""
    start, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen: list[int] = []
    submit = EmbeddedController.submit_lines

    def spy(self: EmbeddedController, *args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold()[0])
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(EmbeddedController, "submit_lines", spy)
    events = tmp_path / "events.jsonl"
    events.write_bytes(b'{"not": "an event"}\n')
    args = argparse.Namespace(
        config=EXAMPLE,
        db=tmp_path / "log.db",
        batch=500,
        snapshot_every=20_000,
        mystery_key=None,
        events=events,
    )
    assert ingest.handle(args) == 0
    assert seen == [YOUNG]
    assert gc.get_threshold() == start
    assert gc.get_freeze_count() == frozen
