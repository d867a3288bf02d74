"""A single-writer session: the floor's state held mutably, the reference's answers given fast.

`controller.floor.decide` and `controller.evolve.evolve` over frozen dataclasses are the rules as
written, and stay the reference. A `Session` answers the same questions for a stream of commands
or events: `step` is ``decide`` then ``evolve`` (the events produced, the state advanced), `apply`
is ``evolve`` alone (a replay). The hot table events (a round opened, wagers, the lock with its
meter contributions, decisions, the settlement with its awards) are handled on mutable records;
everything else (operator commands, configurations, corrections, voids, a pending configuration
change, any refusal, an event type this module does not know) is handed to the reference over the
frozen state, and the session then re-reads what those events touched. `state` gives the frozen
state; ``Session(s).state() == s`` and, for any input, the session's events and state equal the
reference's (``tests/controller/fast/``).

Records are thawed on first use and frozen only when `state` is read, so a session over 10,000
tables starts at once and a read costs what changed since the last one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from controller.config.floor import FloorConfig
from controller.evolve import evolve_many
from controller.fast.apply import APPLIERS
from controller.fast.local import LOCAL_EVENTS, local_to
from controller.fast.meter_record import Meter
from controller.fast.records import KNOWN_SHAPES, Table
from controller.fast.tables import MeterFacts, TableFacts
from controller.fast.void import DECIDERS
from controller.floor import Command, decide
from controller.model.events import ConfigActivated, Event
from controller.model.state import FloorState, HitState, MeterState, TableState, fast_replace
from controller.model.table_events import TableEventBase


class Session:
    """The floor for one writer. Not thread-safe: one owner steps it and reads its state."""

    def __init__(
        self,
        state: FloorState | None = None,
        deferred: Mapping[str, Any] | None = None,
        decode: Callable[[Any], TableState] | None = None,
    ) -> None:
        """``deferred`` holds tables not yet in ``state``, each as ``decode`` reads it: a restart
        from a snapshot decodes a table when it is first used (or when the state is read)."""
        self._reset(state or FloorState())
        self._deferred: Mapping[str, Any] = deferred or {}
        self._decode = decode

    # -- state ---------------------------------------------------------------------------------

    def _reset(self, state: FloorState) -> None:
        self._base = state
        self.tables: dict[str, Table] = {}
        self.meters: dict[str, Meter] = {}
        self.hits: dict[str, HitState] = {}
        self.dirty_tables: set[str] = set()
        self.dirty_meters: set[str] = set()
        self.dirty_hits: set[str] = set()
        self._facts(state)

    def _facts(self, state: FloorState) -> None:
        self.config: FloorConfig | None = state.config
        self.pending = state.pending_config is not None
        self.table_facts: dict[str, TableFacts | None] = {}
        self.meter_facts: dict[str, MeterFacts | None] = {}

    def state(self) -> FloorState:
        """The frozen state: the reference's state after the same input."""
        if self._deferred:
            tables = self._base.tables.mutate()
            for table_id, raw in self._deferred.items():
                if table_id not in tables:
                    tables[table_id] = self._read(raw)
            self._base = fast_replace(self._base, tables=tables.finish())
            self._deferred = {}
        return self._flush()

    @property
    def config_event(self) -> ConfigActivated | None:
        """The configuration in force, as the event that activated it."""
        return self._base.config_event

    def partial_state(self) -> FloorState:
        """The frozen state without the tables still deferred: enough for what reads only the
        configuration and the meters, and costs what changed since the last read."""
        return self._flush()

    def rebased(self, state: FloorState) -> Session:
        """A session over ``state`` (a `partial_state` the edge changed outside the events, such
        as a mystery trigger it unsealed), keeping the tables still deferred."""
        return Session(state, self._deferred, self._decode)

    def rollback_point(self) -> Callable[[], Session]:
        """A new session at this point, when called: what an engine goes back to if the batch
        it decides next never becomes durable. Changed meters and hits are frozen, tables copied
        (an engine takes one a batch: freezing each wager in play cost ~3.5k a line)."""
        base, deferred, decode = self._flush(tables=()), self._deferred, self._decode
        kept = [self.tables[table_id].copy() for table_id in self.dirty_tables]

        def back() -> Session:
            session = Session(base, deferred, decode)
            for table in kept:
                session.tables[table.table_id] = table.copy()
                session.dirty_tables.add(table.table_id)
            return session

        return back

    def _read(self, raw: Any) -> TableState:
        if self._decode is None:
            msg = "a session with deferred tables needs their decoder"
            raise TypeError(msg)
        return self._decode(raw)

    def _flush(self, tables: Collection[str] | None = None) -> FloorState:
        """The frozen state of everything but the tables still deferred; with ``tables``, of
        those tables alone among the tables (none for ``()``; the others stay as last frozen,
        and dirty)."""
        dirty = self.dirty_tables
        if tables is not None:
            dirty = dirty.intersection(tables)
        if dirty or self.dirty_meters or self.dirty_hits:
            base = self._base
            tables = base.tables.mutate()
            for table_id in dirty:
                tables[table_id] = self.tables[table_id].freeze()
            meters = base.meters.mutate()
            for meter_id in self.dirty_meters:
                meters[meter_id] = self.meters[meter_id].freeze()
            hits = base.hits.mutate()
            for hit_id in self.dirty_hits:
                hits[hit_id] = self.hits[hit_id]
            self._base = fast_replace(
                base, tables=tables.finish(), meters=meters.finish(), hits=hits.finish()
            )
            self.dirty_tables.difference_update(dirty)
            self.dirty_meters.clear()
            self.dirty_hits.clear()
        return self._base

    def table(self, table_id: str) -> Table | None:
        """The table's record (thawed on first use), None if the floor has not seen it."""
        table = self.tables.get(table_id)
        if table is None:
            frozen = self._base.tables.get(table_id)
            if frozen is None:
                raw = self._deferred.get(table_id)
                if raw is None:
                    return None
                frozen = self._read(raw)
                self._base = fast_replace(
                    self._base, tables=self._base.tables.set(table_id, frozen)
                )
            table = self.tables[table_id] = Table.thaw(frozen)
        return table

    def new_table(self, table_id: str) -> Table:
        """A record for a table the floor has not seen (`evolve_table`'s default)."""
        table = self.tables[table_id] = Table(table_id, -1, None)
        return table

    def meter(self, meter_id: str) -> Meter | None:
        """The meter's record (thawed on first use), None if there is no such meter."""
        meter = self.meters.get(meter_id)
        if meter is None:
            frozen = self._base.meters.get(meter_id)
            if frozen is None:
                return None
            meter = self.meters[meter_id] = Meter(frozen)
        return meter

    def meter_or_new(self, meter_id: str) -> Meter:
        """`evolve`'s ``meters.get(id) or MeterState(meter_id=id)``."""
        return self.meter(meter_id) or self.meters.setdefault(
            meter_id, Meter(MeterState(meter_id=meter_id))
        )

    def table_def(self, table_id: str) -> TableFacts | None:
        """What the hot checks read of the table's definition; None for an unknown table."""
        facts = self.table_facts.get(table_id, False)
        if facts is False:
            config = self.config
            definition = None if config is None else config.tables.get(table_id)
            facts = self.table_facts[table_id] = (
                None if config is None or definition is None else TableFacts(config, definition)
            )
        return facts  # type: ignore[return-value]  # False was replaced above

    def meter_def(self, meter_id: str) -> MeterFacts | None:
        """A meter's rates; None for a meter the configuration does not define."""
        facts = self.meter_facts.get(meter_id, False)
        if facts is False:
            definition = None if self.config is None else self.config.meters.get(meter_id)
            facts = self.meter_facts[meter_id] = (
                None if definition is None else MeterFacts(definition)
            )
        return facts  # type: ignore[return-value]  # False was replaced above

    # -- the reference, for everything not hot ---------------------------------------------------

    def reference(self, command: Command) -> tuple[Event, ...]:
        """Decide ``command`` with the reference and adopt the state its events lead to. A table
        event with no configuration change pending is decided on the state with only its table
        (and every meter and hit) brought up to date: `controller.floor.decide` then reads no
        other table (`due_change` reads them only for a pending change); its events are adopted
        on it if they touch nothing else, else on the whole state (a void froze every table)."""
        table_id = command.table_id if isinstance(command, TableEventBase) else None
        if table_id is None or self.pending:
            state = self.state()
            events = decide(state, command)
            self.adopt(state, events)
            return events
        self.table(table_id)  # the base holds it from here on, thawed or not
        state = self._flush((table_id,))
        events = decide(state, command)
        if not all(local_to(event, table_id) for event in events):
            state = self.state()
        self.adopt(state, events)
        return events

    def adopt(self, state: FloorState, events: tuple[Event, ...]) -> None:
        """The reference's fold of ``events`` becomes the session's state; the records those
        events touched are dropped, to be thawed again from it."""
        new = evolve_many(state, events)
        if new.config is not state.config or new.pending_config is not state.pending_config:
            self._reset(new)
            return
        self._base = new
        for event in events:
            if not isinstance(event, LOCAL_EVENTS):
                self._reset(new)
                return
            table_id = getattr(event, "table_id", "")
            meter_id = getattr(event, "meter_id", "")
            hit_id = getattr(event, "hit_id", "")
            self.tables.pop(table_id, None)
            self.meters.pop(meter_id, None)
            self.hits.pop(hit_id, None)

    # -- the two entry points --------------------------------------------------------------------

    def step(self, command: Command) -> tuple[Event, ...]:
        """``decide(state, command)``, with the state advanced by the events it returns."""
        decider = DECIDERS.get(type(command)) if KNOWN_SHAPES else None
        if decider is not None and not self.pending:
            events = decider(self, command)
            if events is not None:
                return events
        return self.reference(command)

    def apply(self, event: Event) -> None:
        """``evolve(state, event)``: a recorded event applied, never checked."""
        applier = APPLIERS.get(type(event)) if KNOWN_SHAPES else None
        if applier is None or not applier(self, event):
            state = self.state()
            self.adopt(state, (event,))

    def run(self, commands: Iterable[Command]) -> list[Event]:
        """`controller.floor.run` from the session's state: every event produced, in order."""
        out: list[Event] = []
        extend = out.extend
        deciders = DECIDERS if KNOWN_SHAPES else {}
        for command in commands:  # `step`, written out: one call less per event
            decider = deciders.get(type(command))
            if decider is not None and not self.pending:
                events = decider(self, command)
                if events is not None:
                    extend(events)
                    continue
            extend(self.reference(command))
        return out

    def replay(self, events: Iterable[Event]) -> None:
        """Apply recorded events in order (`controller.floor.replay`)."""
        apply = self.apply
        for event in events:
            apply(event)
