"""The round processor's settlements on the core's fast path (`controller.fast`, issue 14).

A settlement was half of what `controller.rules.table.decide_table` costs the round processor
(card parsing, hand forming, Envy Bonus checks). `controller.fast.settle` mirrors the reference's
`check_settlement` and `settle_round` step for step on card numbers, proven equal by
``tests/controller/fast/``. Here, as in the session (`controller.fast.hot.decide_settle`), the
round must be the one the event names, with a newer seq and an id not seen in it, at a known
table; then `controller.fast.settle_gate.sure_steps` decides whether the fast path is sure. In
every other case `steps` answers None and the processor asks the reference, which then accepts
or words the refusal as it always did.
"""

from __future__ import annotations

from controller.config.floor import FloorConfig
from controller.fast.records import Round
from controller.fast.settle_gate import sure_steps
from controller.fast.tables import MeterFacts, TableFacts
from controller.model.state import TableState
from controller.model.table_events import RoundSettled
from controller.rules.settlement import SettlementStep


class FastSettle:
    """Settlement steps for one floor configuration (its table and meter facts built once)."""

    def __init__(self, config: FloorConfig) -> None:
        self._config = config
        self._tables: dict[str, TableFacts | None] = {}
        self._meters = _MeterFacts(config)
        #: what `sure_steps` asks for each award's meter: a dict read in C once the facts are
        #: built (a Python method per call was ~3% of the worker's time on a table event)
        self._meter = self._meters.__getitem__

    def steps(
        self, table: TableState | None, event: RoundSettled
    ) -> tuple[SettlementStep, ...] | None:
        """`decide_table`'s answer for ``event`` if the fast path is sure of it, else None."""
        current = None if table is None else table.round
        facts = self._table(event.table_id)
        if (
            table is None
            or current is None
            or facts is None
            or current.round_id != event.round_id
            or event.seq <= table.last_seq
            or event.event_id in current.event_ids
        ):
            return None
        try:
            live = Round.thaw(current).indexed()
        except Exception:  # the reference answers (or raises) the same
            return None
        steps = sure_steps(self._config, facts, live, event, self._meter)
        return None if steps is None else tuple(steps)

    def open_steps(
        self, facts: TableFacts, current: Round, event: RoundSettled
    ) -> tuple[SettlementStep, ...] | None:
        """`steps` on the worker's open table (`streams.scaleout.open_rounds`), once the
        session's checks (`hot._head`) found ``current`` the round ``event`` settles: the
        mutable round read as it is, as the session's `hot.decide_settle` reads it (nothing
        changed)."""
        steps = sure_steps(self._config, facts, current, event, self._meter)
        return None if steps is None else tuple(steps)

    def _table(self, table_id: str) -> TableFacts | None:
        if table_id not in self._tables:
            definition = self._config.tables.get(table_id)
            self._tables[table_id] = (
                None if definition is None else TableFacts(self._config, definition)
            )
        return self._tables[table_id]


class _MeterFacts(dict[str, MeterFacts | None]):
    """A meter's facts by id, built on first use (None: a meter the configuration lacks)."""

    def __init__(self, config: FloorConfig) -> None:
        super().__init__()
        self._config = config

    def __missing__(self, meter_id: str) -> MeterFacts | None:
        definition = self._config.meters.get(meter_id)
        found = self[meter_id] = None if definition is None else MeterFacts(definition)
        return found
