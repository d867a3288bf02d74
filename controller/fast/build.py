"""Frozen events built without the dataclass ``__init__``'s per-field overhead.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` looked up per
field, after matching keyword arguments: building a `ContributionRecorded` (14 fields) cost ~2
µs, and a lock builds one per linked wager. `builder` writes, once per class, a function that
takes the given fields positionally and sets every slot through its own descriptor, the other
fields at their declared defaults: the same object, field for field (``==``, ``hash`` and the
encoded bytes; ``tests/controller/fast/test_build.py``). A class it cannot vouch for (a
``__post_init__``, a field outside ``__init__``, a default factory or a missing default for a
field not given) gets its own constructor called instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from controller.claims import ContributionClaim
from controller.model.table_events import DecisionMade, WagerPlaced

_T = TypeVar("_T")


def slot_defaults(cls: type, given: tuple[str, ...]) -> dict[str, Any] | None:
    """The fields not ``given`` with their defaults, if ``cls(**dict(zip(given, values)))`` is
    ``object.__new__(cls)`` with each field's slot set through its descriptor; else None."""
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    defaults = {f.name: f.default for f in fields if f.name not in given}
    plain = (
        not hasattr(cls, "__post_init__")
        and all(f.init for f in fields)
        and set(given) <= set(names)
        and len(set(given)) == len(given)
        and all(
            value is not dataclasses.MISSING and isinstance(value, int | str | type(None))
            for value in defaults.values()
        )
        and all(name.isidentifier() for name in names)
        and all(type(getattr(cls, name, None)).__name__ == "member_descriptor" for name in names)
    )
    return defaults if plain else None


def builder(cls: type[_T], given: tuple[str, ...]) -> Callable[..., _T]:
    """A function ``build(*values)`` equal to ``cls(**dict(zip(given, values)))``."""
    defaults = slot_defaults(cls, given)
    if defaults is None:
        return lambda *values: cls(**dict(zip(given, values, strict=True)))
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]  # checked above
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = []
    for number, name in enumerate(names):
        namespace[f"_set{number}"] = getattr(cls, name).__set__
        value = name if name in given else f"_default{number}"
        namespace[f"_default{number}"] = defaults.get(name)
        lines.append(f"    _set{number}(new, {value})")
    source = "\n".join(
        [f"def build({', '.join(given)}):", "    new = _new(_cls)", *lines, "    return new"]
    )
    exec(source, namespace)  # noqa: S102 - written from the class's own field names, as dataclasses does
    build: Callable[..., _T] = namespace["build"]
    return build


#: `WagerPlaced(...)` and `DecisionMade(...)` with every field, in this order: a state read
#: freezes every wager and decision of a round in play (`controller.fast.records`).
_HEAD = ("event_id", "table_id", "round_id", "seq", "occurred_at", "seat")
WAGER_EVENT = builder(WagerPlaced, (*_HEAD, "wager", "amount_cents", "on"))
DECISION_EVENT = builder(DecisionMade, (*_HEAD, "action", "amount_cents", "discards"))
#: `ContributionClaim(...)` with every field, in this order: the round lane prices a lock's
#: claims with it (`controller.fast.lane`), the meter lane reads one back with it
#: (`streams.scaleout.meter_ops`).
CLAIM_FIELDS = ("meter_id", "table_id", "round_id", "seat", "wager", "on", "wager_cents",
                "primary_sub", "reserve_sub", "occurred_at")  # fmt: skip
CONTRIBUTION_CLAIM = builder(ContributionClaim, CLAIM_FIELDS)
