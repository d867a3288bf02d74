"""The round processor's liveness record, built lazily: one per input, encoded once per table and
batch.

Every input that shows a table is alive produces a latest-wins record on ``<p>.liveness``
(`streams.scaleout.rounds`), and the worker keeps only the last of each table per batch
(`streams.scaleout.records.coalesced`): a batch of 500 events from 8 tables writes 8. Building
and encoding the other 492 cost ~2 µs an input (the body dict, its JSON, the source label, the
frozen `Output`). A `Heard` is an `Output` whose ``value`` and ``dedupe_id`` are written from
its fields when read: the worker reads them only for the records it produces, and anything that
reads them (the metrics, the tests) gets exactly the bytes the eager `Output` held
(`tests/streams/scaleout/test_procs_differential.py` compares every output with main's).
"""

from __future__ import annotations

from typing import Any, Final

from streams.codec import Output
from streams.scaleout.records import SourcePos, dumps, slot_setter


class Heard(Output):
    """A sign of life from table ``key``: ``heard`` is "event", "duplicate" or "heartbeat"; the
    source position makes the dedupe id (a redelivery writes the same record again, harmlessly).

    The parent's ``value`` and ``dedupe_id`` slots stay empty: the properties below stand for
    them, so equality, hashing and ``repr`` (the dataclass's, reading attributes) see the same
    fields as an eager `Output`'s."""

    __slots__ = ("event_id", "heard", "pos")
    heard: str
    event_id: str
    pos: SourcePos

    def __init__(self, topic: str, table_id: str, heard: str, event_id: str, pos: SourcePos):
        _SETS[0](self, topic)  # a frozen parent: its slots are set through their descriptors
        _SETS[1](self, table_id)
        _SETS[2](self, True)
        _SETS[3](self, heard)
        _SETS[4](self, event_id)
        _SETS[5](self, pos)

    @property
    def value(self) -> bytes:
        """The record's JSON, as the eager `Output` held it."""
        body = {
            "table_id": self.key,
            "heard": self.heard,
            "event_id": self.event_id,
            "source": self.pos.label,
        }
        return dumps(body)

    @property
    def dedupe_id(self) -> str:
        pos = self.pos  # ``f"heard@{pos.label}"`` in one string (the metrics read every one)
        return f"heard@{pos.topic}:{pos.partition}:{pos.offset}"


#: ``Heard(topic, table_id, heard, event_id, pos)``, natively when the process runs the
#: extension (`streams.scaleout.records.slot_setter`): one per input.
new_heard: Final = slot_setter(
    Heard, ("topic", "key", "heard", "event_id", "pos"), {"latest_wins": True}, Heard
)


#: The slot setters `Heard.__init__` uses (`object.__setattr__` by name costs twice as much).
_SETS: Final[tuple[Any, ...]] = tuple(
    vars(cls)[name].__set__
    for cls, name in (
        (Output, "topic"),
        (Output, "key"),
        (Output, "latest_wins"),
        (Heard, "heard"),
        (Heard, "event_id"),
        (Heard, "pos"),
    )
)
