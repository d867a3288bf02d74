"""The meter read-model contract, written once and run against every adapter (memory, Redis).

An adapter's test module subclasses `MeterReadModelContract` and provides ``make_model`` (a new,
empty model). A model may add the stored ``seq`` to what `read` returns (Redis keeps it in the
hash signs read); if it does, it must be the seq of the update that won.
"""

from __future__ import annotations

import random
import threading
from abc import ABC, abstractmethod

from streams.ports import MeterReadModel


def fields_read(model: MeterReadModel, meter_id: str, seq: int) -> dict[str, str]:
    """What ``read`` gives for ``meter_id``, checking the ``seq`` field if the model adds one."""
    found = model.read(meter_id)
    assert found is not None, f"{meter_id} was published but reads as None"
    found = dict(found)
    stored = found.pop("seq", None)
    assert stored in (None, str(seq)), f"stored seq {stored!r}, expected {seq}"
    return found


class MeterReadModelContract(ABC):
    """Every `MeterReadModel` adapter must pass these."""

    @abstractmethod
    def make_model(self) -> MeterReadModel:
        """A new, empty read model."""

    def test_read_of_an_unknown_meter_is_none(self) -> None:
        model = self.make_model()
        assert model.read("never-published") is None

    def test_fields_round_trip(self) -> None:
        model = self.make_model()
        fields = {"amount": "10234.56", "reserve": "0.00", "status": "live", "note": "Ünïcode ✓"}
        assert model.publish("m-1", 1, fields) is True
        assert fields_read(model, "m-1", 1) == fields

    def test_the_first_publish_is_stored_whatever_its_seq(self) -> None:
        model = self.make_model()
        assert model.publish("m-1", 0, {"amount": "1.00"}) is True
        assert fields_read(model, "m-1", 0) == {"amount": "1.00"}

    def test_a_newer_seq_wins_and_replaces_the_fields(self) -> None:
        model = self.make_model()
        model.publish("m-1", 1, {"amount": "1.00", "status": "live"})
        assert model.publish("m-1", 5, {"amount": "5.00"}) is True
        assert fields_read(model, "m-1", 5) == {"amount": "5.00"}

    def test_an_older_seq_is_ignored(self) -> None:
        model = self.make_model()
        model.publish("m-1", 7, {"amount": "7.00"})
        assert model.publish("m-1", 6, {"amount": "6.00"}) is False
        assert fields_read(model, "m-1", 7) == {"amount": "7.00"}

    def test_an_equal_seq_is_ignored(self) -> None:
        model = self.make_model()
        model.publish("m-1", 7, {"amount": "7.00"})
        assert model.publish("m-1", 7, {"amount": "other"}) is False
        assert fields_read(model, "m-1", 7) == {"amount": "7.00"}

    def test_meters_are_independent(self) -> None:
        model = self.make_model()
        model.publish("m-1", 9, {"amount": "9.00"})
        assert model.publish("m-2", 1, {"amount": "1.00"}) is True
        assert fields_read(model, "m-1", 9) == {"amount": "9.00"}
        assert fields_read(model, "m-2", 1) == {"amount": "1.00"}

    def test_a_seq_field_in_the_fields_cannot_override_the_guard(self) -> None:
        model = self.make_model()
        model.publish("m-1", 3, {"amount": "3.00", "seq": "3"})
        assert model.publish("m-1", 2, {"amount": "2.00", "seq": "99"}) is False
        assert fields_read(model, "m-1", 3)["amount"] == "3.00"

    def test_concurrent_publishers_end_with_the_highest_seq(self) -> None:
        model = self.make_model()
        seqs = list(range(1, 201))
        random.Random(4).shuffle(seqs)
        shares = [seqs[i::4] for i in range(4)]
        barrier = threading.Barrier(len(shares))
        stored: list[int] = []
        lock = threading.Lock()

        def publisher(mine: list[int]) -> None:
            barrier.wait()
            for seq in mine:
                if model.publish("m-hot", seq, {"amount": f"{seq}.00"}):
                    with lock:
                        stored.append(seq)

        threads = [threading.Thread(target=publisher, args=(share,)) for share in shares]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert fields_read(model, "m-hot", 200) == {"amount": "200.00"}
        assert 200 in stored
        assert model.publish("m-hot", 199, {"amount": "late"}) is False
