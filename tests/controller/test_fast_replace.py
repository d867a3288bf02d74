"""`fast_replace` (written out per class) is `dataclasses.replace` for the frozen state classes."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given as for_all
from hypothesis import strategies as st

from controller.model.state import HitState, MeterState, RoundState, TableState, fast_replace

METER_INTS = [f.name for f in dataclasses.fields(MeterState) if f.type == "int"]


@for_all(
    st.dictionaries(st.sampled_from(METER_INTS), st.integers(-(10**20), 10**20)),
    st.dictionaries(st.sampled_from(METER_INTS), st.integers(-(10**20), 10**20)),
)
def test_fast_replace_is_dataclasses_replace(
    start: dict[str, Any], changes: dict[str, Any]
) -> None:
    meter = MeterState(meter_id="m1", **start)
    assert fast_replace(meter, **changes) == dataclasses.replace(meter, **changes)
    assert meter == MeterState(meter_id="m1", **start)  # the original is untouched


def test_every_state_class_and_no_change() -> None:
    round_state = RoundState(round_id="r1", game="three_card_poker", phase="open")
    table = TableState(table_id="t1", round=round_state)
    hit = HitState(hit_id="h1", meter_id="m1", amount_cents=5, status="pending_validation")
    assert fast_replace(round_state, phase="locked") == dataclasses.replace(
        round_state, phase="locked"
    )
    assert fast_replace(table, last_seq=3) == TableState(
        table_id="t1", last_seq=3, round=round_state
    )
    assert fast_replace(hit, status="paid").status == "paid"
    assert fast_replace(hit) == hit
    assert fast_replace(hit) is not hit
