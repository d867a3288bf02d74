"""The lanes' records (`controller.fast.lane`, `controller.fast.meter_lane`) built by the makers
the worker installs (`streams.scaleout.records.fast_builder`: natively when the extension runs)
are the objects `controller.fast.build.builder`'s functions build: same type, every slot the same
object."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.claims import ContributionClaim
from controller.fast import lane, meter_lane
from controller.fast.build import CLAIM_FIELDS, builder
from controller.model.events import ContributionRecorded
from controller.model.state import MeterState, RoundState, TableState
from streams import native
from streams.scaleout.records import fast_builder

#: (class, given fields) of each record `lane.install` rebinds, by the module and name it rebinds
BUILT: dict[tuple[types.ModuleType, str], tuple[type, tuple[str, ...]]] = {
    (lane, "_round"): (RoundState, lane._ROUND_FIELDS),
    (lane, "_table"): (TableState, lane._TABLE_FIELDS),
    (meter_lane, "_meter"): (MeterState, meter_lane.METER_FIELDS),
    (meter_lane, "_recorded"): (ContributionRecorded, meter_lane._RECORDED_FIELDS),
    (lane, "_claim"): (ContributionClaim, CLAIM_FIELDS),
}
#: any value a slot may be handed (the makers check no type: the lanes' own values go in)
VALUE = st.one_of(st.integers(), st.text(max_size=5), st.none(), st.tuples(st.integers()))


def slots(record: object) -> list[object]:
    return [getattr(record, f.name) for f in dataclasses.fields(record)]  # type: ignore[arg-type]


WHERE = sorted(BUILT, key=lambda where: where[1])


@pytest.mark.parametrize("where", WHERE, ids=[name for _module, name in WHERE])
@given(data=st.data())
def test_the_installed_maker_builds_builders_object(
    where: tuple[types.ModuleType, str], data: st.DataObject
) -> None:
    cls, given_fields = BUILT[where]
    values = data.draw(st.lists(VALUE, min_size=len(given_fields), max_size=len(given_fields)))
    module, name = where
    made: Callable[..., Any] = getattr(module, name)
    got: object = made(*values)
    want: object = builder(cls, given_fields)(*values)
    assert type(got) is type(want) is cls
    assert all(a is b for a, b in zip(slots(got), slots(want), strict=True))


def test_the_worker_installed_the_native_makers() -> None:
    """Importing the worker's records installs them: natively if the extension runs (the reason
    for the hook; without it, `builder`'s own functions, as before)."""
    for (module, name), (cls, given_fields) in BUILT.items():
        made = getattr(module, name)
        if native.load() is not None:
            assert type(made) is type(fast_builder(cls, given_fields)), name
            assert not isinstance(made, types.FunctionType), name  # not `builder`'s written one
