"""A `ContributionRecorded` built for the lock (`controller.fast.hot.decide_lock`) without the
dataclass constructor's keyword matching.

Its own module because it is a construction trick with its own proof (``tests/controller/fast/
test_build.py``: equal to the constructor's event, same hash and bytes), apart from the rules the
deciders check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Final

from controller.model.events import ContributionRecorded

#: The fields `contribution` is given, in this order; the others keep their declared defaults.
GIVEN: Final = (
    "meter_id", "table_id", "round_id", "seat", "wager", "on", "wager_cents",
    "primary_sub", "reserve_sub", "meter_seq", "occurred_at", "overflow_sub",
)  # fmt: skip
_DEFAULTS: Final = tuple(
    (f.name, f.default) for f in fields(ContributionRecorded) if f.name not in GIVEN
)


def contribution(*values: object) -> ContributionRecorded:
    """``ContributionRecorded(**dict(zip(GIVEN, values)))``: each slot set as the frozen
    dataclass's ``__init__`` sets it (``object.__setattr__``), without its keyword matching.
    Compiled, each ``object.__setattr__`` is one C call, ~6x cheaper than the slot descriptor's
    ``__set__`` that `controller.fast.build.builder` calls (``tests/controller/fast/
    test_build.py``: equal to the constructor's, same hash and bytes)."""
    new = object.__new__(ContributionRecorded)
    for name, default in _DEFAULTS:
        object.__setattr__(new, name, default)
    for number, name in enumerate(GIVEN):  # a `zip` would be built by keywords, for strict
        object.__setattr__(new, name, values[number])
    return new


#: What the lock calls to build each contribution (`controller.fast.hot.decide_lock`):
#: `contribution` unless the embedding engine installed a faster builder of the same events
#: (`install`). A one-item list, not a rebound name, so compiled callers read it through a
#: static reference (a module attribute would be a dict lookup a call).
BUILD: Final[list[Callable[..., ContributionRecorded]]] = [contribution]


def install(build: Callable[..., ContributionRecorded] | None) -> None:
    """Let the lock build its contributions with ``build`` (taking `GIVEN` positionally, equal
    to `contribution`'s event field for field: the caller's proof), or with `contribution`
    again when None. `controller` does not import `streams`: the engine hands its native
    `Builder` in here (`streams.embedded.lines`)."""
    BUILD[0] = contribution if build is None else build
