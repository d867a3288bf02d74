"""The records the worker makes per input, built by `streams.scaleout.records.fast_builder` (the
native slot builder when the extension runs), are the objects their classes' constructors make:
equal, the same repr, every slot set."""

from __future__ import annotations

from typing import Any

import pytest

from controller.claims import ContributionClaim
from controller.model.state import MeterState, TableState
from controller.model.table_events import DecisionMade, RoundOpened, WagerPlaced, WagersLocked
from streams import native
from streams.codec import Output
from streams.scaleout import meter_ops, meters, records, table_read, table_record
from streams.scaleout.meter_ops import MeterOp
from streams.scaleout.meters import MeterRecord
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.table_record import TableRecord

HEAD = {"event_id": "e1", "table_id": "t1", "round_id": "r1", "seq": 3, "occurred_at": "z"}
CLAIM = ContributionClaim(meter_id="m", table_id="t1", round_id="r1", seat=2, wager="ante",
                          on="own", wager_cents=500, primary_sub=10, reserve_sub=1,
                          occurred_at="z")  # fmt: skip
CASES: list[tuple[Any, type, dict[str, Any]]] = [
    (records.source_pos, SourcePos, {"topic": "t", "partition": 1, "offset": 2, "timestamp_ms": 3}),
    (records.processed, Processed, {"outcome": "accepted", "record": None, "outputs": ()}),
    (records.output, Output, {"topic": "t", "key": "k", "value": b"v", "dedupe_id": "d"}),
    (
        table_record._record,
        TableRecord,
        {"table": TableState(table_id="t1"), "partition": 1, "offset": 2,
         "recent": (("e", "d"),), "ids": {"e": "d"}, "owed": (("m", 1, 0),)},
    ),
    (
        meters.meter_record,
        MeterRecord,
        {"meter": MeterState(meter_id="m"), "marks": {"t1": (1, 0)}, "partition": 1, "offset": 2,
         "diverts": {"m2": 3}, "hold": "t1:4"},
    ),
    (
        meter_ops.meter_op,
        MeterOp,
        {"meter_id": "m", "kind": "contribution", "table_id": "t1", "table_seq": 3, "index": 0,
         "occurred_at": "z", "claim": CLAIM},
    ),
    (table_read._OPENED, RoundOpened, {**HEAD, "game": "three_card_poker"}),
    (
        table_read._WAGER,
        WagerPlaced,
        {**HEAD, "seat": 2, "wager": "ante", "amount_cents": 500, "on": "own"},
    ),
    (table_read._LOCKED, WagersLocked, HEAD),
    (
        table_read._DECISION,
        DecisionMade,
        {**HEAD, "seat": 2, "action": "play", "amount_cents": 500, "discards": ()},
    ),
]  # fmt: skip


@pytest.mark.parametrize(("build", "cls", "fields"), CASES, ids=[c[1].__name__ for c in CASES])
def test_a_built_record_is_its_classs(build: Any, cls: type, fields: dict[str, Any]) -> None:
    made, expected = build(*fields.values()), cls(**fields)
    assert type(made) is cls
    assert made == expected
    assert repr(made) == repr(expected)
    assert all(getattr(made, name) == value for name, value in fields.items())


def test_the_builders_are_native_when_the_extension_runs() -> None:
    if native.load() is None:
        pytest.skip("the native extension is not built in this process (make fast)")
    # `Builder.fast` hands out a fast-call builtin bound to the native `Builder`.
    bound = [getattr(build, "__self__", None) for build, _, _ in CASES]
    assert all(type(owner).__name__ == "Builder" for owner in bound)
