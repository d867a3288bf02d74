"""The lazy liveness record (`streams.scaleout.heard.Heard`): the same record as the eager
`Output` it replaced, and encoded only for the one per table a batch keeps."""

from __future__ import annotations

import pytest

from streams.codec import Output
from streams.scaleout.records import SourcePos, coalesced, dumps
from streams.scaleout.rounds import heard_output

POS = SourcePos("p.table-events", 2, 41, 1_796_000_000_000)


def test_it_is_the_eager_record_field_for_field() -> None:
    eager = Output(
        "p.liveness",
        "tcp-1",
        b'{"event_id":"e-7","heard":"duplicate","source":"p.table-events:2:41","table_id":"tcp-1"}',
        "heard@p.table-events:2:41",
        latest_wins=True,
    )
    lazy = heard_output("p.liveness", "tcp-1", "duplicate", "e-7", POS)
    fields = ("topic", "key", "value", "dedupe_id", "latest_wins")
    assert [getattr(lazy, f) for f in fields] == [getattr(eager, f) for f in fields]
    assert lazy == heard_output("p.liveness", "tcp-1", "duplicate", "e-7", POS)
    assert lazy != heard_output("p.liveness", "tcp-1", "event", "e-7", POS)
    assert hash(lazy) == hash(heard_output("p.liveness", "tcp-1", "duplicate", "e-7", POS))


def test_a_batch_encodes_only_the_records_it_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[object] = []

    def counted(value: object) -> bytes:
        written.append(value)
        return dumps(value)

    monkeypatch.setattr("streams.scaleout.heard.dumps", counted)
    batch: list[Output] = []
    for offset in range(500):
        pos = SourcePos("p.table-events", 0, offset)
        batch.append(heard_output("p.liveness", f"tcp-{offset % 8}", "event", f"e-{offset}", pos))
    assert written == []  # nothing encoded while the batch is decided
    kept = coalesced(batch)
    values = [out.value for out in kept]  # what the worker's produce reads
    assert len(kept) == len(written) == 8
    assert [out.key for out in kept] == [f"tcp-{n}" for n in range(4, 8)] + [
        f"tcp-{n}" for n in range(4)
    ]
    assert b'"event_id":"e-499"' in values[-1]
