"""The read-model contract on the in-memory twin (Redis runs it in tests/integration)."""

from __future__ import annotations

from streams.adapters.memory import MemoryReadModel
from streams.ports import MeterReadModel
from tests.streams.adapters.read_model_contract import MeterReadModelContract


class TestMemoryReadModel(MeterReadModelContract):
    def make_model(self) -> MeterReadModel:
        return MemoryReadModel()
