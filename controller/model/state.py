"""State folded from events: tables with their current round, meters, and hits awaiting payment.

Everything is frozen. Collections of many entries (tables, meters, hits) are persistent maps
(`immutables.Map`, a hash array mapped trie) so that `evolve` touches one entry in O(log n)
instead of
copying a dict of 10,000 tables per event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, Literal, TypeVar

from immutables import Map

from controller.config.floor import FloorConfig
from controller.model.events import ConfigActivated, ConfigChangeScheduled
from controller.model.table_events import DecisionMade, WagerPlaced

_T = TypeVar("_T")


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def fast_replace(obj: _T, /, **changes: object) -> _T:
    """`dataclasses.replace` for the frozen state classes, without its per-call introspection.

    Folding a long log calls this for every event; `dataclasses.replace` spent a third of the
    core's time re-reading field metadata. No state class has ``__post_init__``, so building the
    object field by field is equivalent.
    """
    cls: type = type(obj)
    replace: Callable[[_T, dict[str, object]], _T] = _replacer(cls)
    return replace(obj, changes)


@cache
def _replacer(cls: type) -> Callable[[Any, dict[str, object]], Any]:
    """A replace function written out for ``cls``, one line per field, as `dataclasses` writes
    ``__init__``: a loop over the field names cost twice as much, and this runs several times per
    event. The names are the class's own field names (identifiers), nothing from outside."""
    lines = [
        f"    _set(new, {name!r}, changes[{name!r}] if {name!r} in changes else obj.{name})"
        for name in _field_names(cls)
    ]
    source = "\n".join(
        ["def replace(obj, changes):", "    new = _new(_cls)", *lines, "    return new"]
    )
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_set": object.__setattr__}
    exec(source, namespace)  # noqa: S102 - written from the field names above, as dataclasses does
    replace: Callable[[Any, dict[str, object]], Any] = namespace["replace"]
    return replace


RoundPhase = Literal["open", "locked", "settled", "voided"]
HitStatus = Literal["pending_validation", "validated", "paid"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundState:
    """The round a table is playing (or last played)."""

    round_id: str
    game: str
    phase: RoundPhase
    wagers: tuple[WagerPlaced, ...] = ()
    decisions: tuple[DecisionMade, ...] = ()
    contributions: tuple[tuple[str, int, int], ...] = ()  # (meter_id, primary_sub, reserve_sub)
    event_ids: frozenset[str] = frozenset()

    def folded(self) -> frozenset[int]:
        """Seats that folded. A fold is always a seat's last decision (`check_decision` refuses
        any decision after a fold or a continue action), so any fold among its decisions is it."""
        return frozenset(d.seat for d in self.decisions if d.action == "fold")


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """A table's position in its own event stream."""

    table_id: str
    last_seq: int = -1
    round: RoundState | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MeterState:
    """A meter and the running totals that explain it.

    Conservation (checked by property tests): seeded + contributed - paid + corrected
    + transferred == amount + reserve + overflow, in sub-units, at every step.
    """

    meter_id: str
    amount_sub: int = 0
    reserve_sub: int = 0
    seeded_sub: int = 0
    contributed_sub: int = 0
    contributions: int = 0
    paid_sub: int = 0
    corrected_sub: int = 0
    hits: int = 0
    seq: int = 0
    overflow_sub: int = 0
    """Contributions above the ceiling, carried to the next 100% hit's restart (NY 5320.8)."""
    transferred_sub: int = 0
    """Net money moved in (+) or out (-) by other meters' diverts and by transfers."""
    retired: bool = False
    """Its pool was transferred away: it accepts nothing more, and stays in every report."""
    mystery_commitment: str = ""
    """A mystery level's armed commitment; "" while unarmed (`controller.mystery`)."""
    mystery_sealed: str = ""
    """The armed trigger and salt as the edge sealed them (opaque to the core)."""
    mystery_trigger_cents: int = field(default=-1, compare=False)
    """The armed trigger once the edge has unsealed it into this process's state (-1: unknown).
    Never logged, never in a snapshot (`controller.snapshot.meter_to_dict`), never in a read API.
    Not compared: what a process knows is not the state, so a refold of the log (which cannot
    know it) equals the state served (the self-check, a restart)."""
    mystery_salt: str = field(default="", compare=False)
    open_rounds: Map[str, tuple[str, int, int]] = field(default_factory=Map)
    """Per table, the round whose contributions are still in this meter: (round_id, primary_sub,
    reserve_sub). A void reverses at most this; a 100% hit pays it out and clears it. The primary
    part is what stayed in this meter's pool (meter or overflow), not what was diverted."""

    def explained_sub(self) -> int:
        """What the events say the meter, its reserve and its overflow together must hold."""
        return (
            self.seeded_sub
            + self.contributed_sub
            - self.paid_sub
            + self.corrected_sub
            + self.transferred_sub
        )

    def held_sub(self) -> int:
        """What the meter, its reserve and its overflow hold: the pool's whole liability."""
        return self.amount_sub + self.reserve_sub + self.overflow_sub


@dataclass(frozen=True, slots=True, kw_only=True)
class HitState:
    """A progressive hit on its way from recognised to validated to paid (649a.11(c)(5))."""

    hit_id: str
    meter_id: str
    amount_cents: int
    status: HitStatus
    validated_by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class FloorState:
    """The whole floor. ``config`` is None until the first `ConfigActivated` event."""

    config: FloorConfig | None = None
    config_version: int = 0
    config_event: ConfigActivated | None = None
    pending_config: ConfigChangeScheduled | None = None
    tables: Map[str, TableState] = field(default_factory=Map)
    meters: Map[str, MeterState] = field(default_factory=Map)
    hits: Map[str, HitState] = field(default_factory=Map)
