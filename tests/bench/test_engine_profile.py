"""`bench.engine_profile` sets up the row's three workloads and runs them when called."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import engine_profile
from streams.adapters.sqlite import SqliteLog


@pytest.fixture(scope="module")
def lines() -> list[bytes]:
    return engine_profile.lines_of(60)


def test_the_engine_over_sqlite_logs_every_line(lines: list[bytes], tmp_path: Path) -> None:
    run = engine_profile.prepared("sqlite", lines, tmp_path, "subject")
    before = SqliteLog(tmp_path / "subject.db").head()
    run()
    assert SqliteLog(tmp_path / "subject.db").head() >= before + len(lines)


def test_the_reference_appends_each_line_once(lines: list[bytes], tmp_path: Path) -> None:
    engine_profile.prepared("append", lines, tmp_path, "reference")()
    log = SqliteLog(tmp_path / "reference.db")
    assert [record.payload for record in log.read()] == lines


def test_the_null_log_run_and_an_unknown_mode(lines: list[bytes], tmp_path: Path) -> None:
    engine_profile.prepared("null", lines, tmp_path, "null")()  # the engine alone: no file
    assert not (tmp_path / "null.db").exists()
    with pytest.raises(ValueError, match="one of sqlite, null, append"):
        engine_profile.prepared("memory", lines, tmp_path, "x")
