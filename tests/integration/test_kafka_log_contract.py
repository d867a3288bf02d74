"""The event-log contract (`tests/streams/adapters/log_contract.py`) on a real Kafka broker.

`streams.adapters.kafka.log.KafkaLog` keeps the port's total order by using a single-partition
topic and
one transaction per append; each test gets a fresh topic. The embedded engine also runs on it.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from controller.model.errors import DuplicateRecord, StoreUnavailable
from streams.adapters.kafka.log import KafkaLog
from streams.adapters.memory import MemoryLog
from streams.codec import fold_log
from streams.embedded.engine import EmbeddedController
from streams.ports import EventLog, LogRecord
from tests.integration.services import require_kafka
from tests.streams.adapters.log_contract import EventLogContract

pytestmark = pytest.mark.integration

CONFIG = Path(__file__).resolve().parents[2] / "examples" / "pa-three-card-poker.toml"


def _topic() -> str:
    return f"test-log-{uuid.uuid4().hex[:12]}"


class TestKafkaLog(EventLogContract):
    @pytest.fixture(autouse=True)
    def _bootstrap(self) -> None:
        self.bootstrap = require_kafka()

    def make_log(self) -> EventLog:
        return KafkaLog(self.bootstrap, _topic())

    def reopen(self, log: EventLog) -> EventLog:
        assert isinstance(log, KafkaLog)
        return KafkaLog(log.bootstrap, log.topic)


def test_a_second_writer_fences_the_first() -> None:
    bootstrap, topic = require_kafka(), _topic()
    first = KafkaLog(bootstrap, topic)
    first.append([LogRecord("tcp-1", b"a", "a")])
    second = KafkaLog(bootstrap, topic)
    assert second.contains("a")
    with pytest.raises(StoreUnavailable, match=r"(?i)fenc"):
        first.append([LogRecord("tcp-1", b"b", "b")])
    second.append([LogRecord("tcp-1", b"c", "c")])
    assert [r.payload for r in second.read()] == [b"a", b"c"]
    with pytest.raises(DuplicateRecord):
        second.append([LogRecord("tcp-1", b"again", "a")])


def test_the_embedded_engine_runs_on_the_kafka_log() -> None:
    log = KafkaLog(require_kafka(), _topic())
    controller = EmbeddedController(log, MemoryLog())
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    raws: list[object] = [
        {
            "type": "round_opened",
            "event_id": "tcp-1:1",
            "table_id": "tcp-1",
            "round_id": "R1",
            "seq": 1,
            "occurred_at": "2026-01-01T00:00:00Z",
            "game": "three_card_poker",
        }
    ]
    assert [o.status for o in controller.submit(raws)] == ["accepted"]
    assert [o.status for o in controller.submit(raws)] == ["duplicate"]
    state, position = fold_log(KafkaLog(log.bootstrap, log.topic))
    assert position == controller.position
    assert state.meters == controller.state.meters
