"""A `ContributionRecorded` built for the lock (`controller.fast.hot.decide_lock`) without the
dataclass constructor's keyword matching.

Its own module because it is a construction trick with its own proof (``tests/controller/fast/
test_build.py``: equal to the constructor's event, same hash and bytes), apart from the rules the
deciders check.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Final

from controller.model.events import ContributionRecorded

#: The fields `contribution` is given, in this order; the others keep their declared defaults.
_GIVEN: Final = (
    "meter_id", "table_id", "round_id", "seat", "wager", "on", "wager_cents",
    "primary_sub", "reserve_sub", "meter_seq", "occurred_at", "overflow_sub",
)  # fmt: skip
_DEFAULTS: Final = tuple(
    (f.name, f.default) for f in fields(ContributionRecorded) if f.name not in _GIVEN
)


def contribution(*values: object) -> ContributionRecorded:
    """``ContributionRecorded(**dict(zip(_GIVEN, values)))``: each slot set as the frozen
    dataclass's ``__init__`` sets it (``object.__setattr__``), without its keyword matching.
    Compiled, each ``object.__setattr__`` is one C call, ~6x cheaper than the slot descriptor's
    ``__set__`` that `controller.fast.build.builder` calls (``tests/controller/fast/
    test_build.py``: equal to the constructor's, same hash and bytes)."""
    new = object.__new__(ContributionRecorded)
    for name, default in _DEFAULTS:
        object.__setattr__(new, name, default)
    for number, name in enumerate(_GIVEN):  # a `zip` would be built by keywords, for strict
        object.__setattr__(new, name, values[number])
    return new
