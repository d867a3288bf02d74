"""The event-log contract, written once and run against every adapter (memory, SQLite, Kafka).

An adapter's test module subclasses `EventLogContract` and provides ``make_log`` (a fresh log)
and ``reopen`` (the same log after a close, for durability).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod

import pytest

from controller.model.errors import DuplicateRecord
from streams.ports import EventLog, LogRecord


def records(count: int, key: str = "tcp-1", prefix: str = "e") -> list[LogRecord]:
    """``count`` records with distinct payloads and dedupe ids."""
    return [LogRecord(key, f"{prefix}{i}".encode(), f"{prefix}{i}") for i in range(count)]


class EventLogContract(ABC):
    """Every `EventLog` adapter must pass these."""

    @abstractmethod
    def make_log(self) -> EventLog:
        """A new, empty log."""

    @abstractmethod
    def reopen(self, log: EventLog) -> EventLog:
        """The same log after ``close``."""

    def test_empty_log_has_head_zero_and_reads_nothing(self) -> None:
        log = self.make_log()
        assert log.head() == 0
        assert list(log.read()) == []

    def test_records_read_back_in_append_order(self) -> None:
        log = self.make_log()
        log.append(records(3, "tcp-1", "a"))
        log.append(records(2, "tcp-2", "b"))
        payloads = [r.payload for r in log.read()]
        assert payloads == [b"a0", b"a1", b"a2", b"b0", b"b1"]
        positions = [r.position for r in log.read()]
        assert positions == sorted(positions)
        assert len(set(positions)) == 5

    def test_order_per_key_holds_under_interleaving(self) -> None:
        log = self.make_log()
        for i in range(10):
            log.append([LogRecord(f"t{i % 3}", f"{i}".encode())])
        for key in ("t0", "t1", "t2"):
            values = [int(r.payload) for r in log.read() if r.key == key]
            assert values == sorted(values)

    def test_read_after_a_position_returns_only_later_records(self) -> None:
        log = self.make_log()
        last = log.append(records(4))
        middle = [r.position for r in log.read()][1]
        later = list(log.read(after=middle))
        assert [r.payload for r in later] == [b"e2", b"e3"]
        assert list(log.read(after=last)) == []

    def test_head_is_the_position_of_the_last_record(self) -> None:
        log = self.make_log()
        returned = log.append(records(3))
        assert log.head() == returned == [r.position for r in log.read()][-1]

    def test_a_dedupe_id_is_accepted_once_and_the_whole_batch_refused(self) -> None:
        log = self.make_log()
        log.append(records(2))
        before = log.head()
        batch = [LogRecord("tcp-1", b"new", "fresh"), LogRecord("tcp-1", b"again", "e1")]
        with pytest.raises(DuplicateRecord):
            log.append(batch)
        assert log.head() == before
        assert not log.contains("fresh")
        assert log.contains("e0")

    def test_the_payload_of_a_dedupe_id_is_what_was_appended_with_it(self) -> None:
        log = self.make_log()
        log.append([*records(3), LogRecord("m", b"no id")])
        assert log.payload_of("e1") == b"e1"
        assert log.payload_of("unknown") is None
        assert log.payload_of("") is None
        asked = ["e2", "unknown", "e0", "e2"]
        assert log.payloads_of(asked) == {"e0": b"e0", "e2": b"e2"}
        assert log.payloads_of([]) == {}

    def test_payloads_of_many_ids_at_once_and_after_a_reopen(self) -> None:
        log = self.make_log()
        log.append(records(1_200))  # more ids than one SQL statement may bind
        log.close()
        again = self.reopen(log)
        asked = [f"e{i}" for i in range(0, 1_300, 3)]
        expected = {f"e{i}": f"e{i}".encode() for i in range(0, 1_200, 3)}
        assert again.payloads_of(asked) == expected
        assert again.payloads_of(asked) == {i: p for i in asked if (p := again.payload_of(i))}

    def test_records_without_dedupe_id_may_repeat(self) -> None:
        log = self.make_log()
        log.append([LogRecord("m", b"x"), LogRecord("m", b"x")])
        assert [r.payload for r in log.read()] == [b"x", b"x"]

    def test_appended_records_survive_a_reopen(self) -> None:
        log = self.make_log()
        log.append(records(5))
        log.close()
        again = self.reopen(log)
        assert [r.payload for r in again.read()] == [f"e{i}".encode() for i in range(5)]
        assert again.contains("e4")

    def test_concurrent_appends_lose_nothing(self) -> None:
        log = self.make_log()

        def writer(name: str) -> None:
            for i in range(25):
                log.append([LogRecord(name, f"{name}{i}".encode(), f"{name}{i}")])

        threads = [threading.Thread(target=writer, args=(f"w{n}",)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        payloads = [r.payload for r in log.read()]
        assert len(payloads) == 100
        for n in range(4):
            mine = [int(p.decode()[2:]) for p in payloads if p.startswith(f"w{n}".encode())]
            assert mine == list(range(25))
