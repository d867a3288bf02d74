"""`bench.engine_split` runs what it names: the engine's own batches are the records the full
engine stores, the reference the lines, and the full engine's two sides add up."""

from __future__ import annotations

from pathlib import Path

from bench import engine_profile, engine_split
from streams.adapters.sqlite import SqliteLog


def _payloads(path: Path) -> list[bytes]:
    log = SqliteLog(path)
    try:
        return [record.payload for record in log.read()]
    finally:
        log.close()


def test_each_run_stores_what_it_names_and_the_figures_add_up(tmp_path: Path) -> None:
    lines = engine_profile.lines_of(60)
    runs = engine_split.runs_of(lines, tmp_path, flush=1)
    assert list(runs) == ["null", "full", "own", "reference", "flushed"]
    times = engine_split.measure(runs, 1)  # in order: full -> 0.db, own -> 1.db, reference -> 2.db
    engine, own, reference = (_payloads(tmp_path / f"{index}.db") for index in range(3))
    assert len(own) > len(lines)  # the derived records too
    assert engine[-len(own) :] == own  # after the start's configuration records
    assert reference == lines
    assert times["null"][0][1] == times["flushed"][0][1] == 0.0
    assert times["full"][0][1] > 0.0
    assert times["own"][0][0] == 0.0
    figures = engine_split.report(times, len(lines))
    assert abs(figures["full decide"] + figures["full append"] - figures["full"]) < 1e-9
    assert figures["cpu_ratio"] == figures["reference"] / figures["full"]
