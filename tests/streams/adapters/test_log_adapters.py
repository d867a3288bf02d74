"""The log contract on the in-memory twin and on SQLite (Kafka runs it in tests/integration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from streams.adapters.memory import MemoryLog
from streams.adapters.sqlite import SqliteLog
from streams.ports import EventLog
from tests.streams.adapters.log_contract import EventLogContract


class TestMemoryLog(EventLogContract):
    def make_log(self) -> EventLog:
        return MemoryLog()

    def reopen(self, log: EventLog) -> EventLog:
        return log  # the twin's "durability" is the object itself


class TestSqliteLog(EventLogContract):
    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path

    def make_log(self) -> EventLog:
        return SqliteLog(self.folder / "log.db")

    def reopen(self, log: EventLog) -> EventLog:
        assert isinstance(log, SqliteLog)
        return SqliteLog(log.path)
