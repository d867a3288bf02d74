"""The round processor's settlements on the core's fast path (`controller.fast`, issue 14).

A settlement was half of what `controller.rules.table.decide_table` costs the round processor
(card parsing, hand forming, Envy Bonus checks). `controller.fast.settle` mirrors the reference's
`check_settlement` and `settle_round` step for step on card numbers, proven equal by
``tests/controller/fast/``; the session answers with it exactly when this module does
(`controller.fast.hot.decide_settle`): a locked round that the event names, a newer seq, an id not
seen in the round, a known game and table, the cards readable and the counts right, every hit on
a plain ("hot") meter. In every other case, and on any exception, `steps` answers None and the
processor asks the reference, which then accepts or words the refusal as it always did.
"""

from __future__ import annotations

from controller.config.floor import FloorConfig
from controller.fast import settle_check
from controller.fast.records import Round
from controller.fast.settle import settle
from controller.fast.tables import MeterFacts, TableFacts
from controller.meter import HitClaim
from controller.model.events import EnvyAwarded, FixedAwarded
from controller.model.games import GAMES
from controller.model.state import TableState
from controller.model.table_events import RoundSettled
from controller.rules.settlement import SettlementStep


class FastSettle:
    """Settlement steps for one floor configuration (its table and meter facts built once)."""

    def __init__(self, config: FloorConfig) -> None:
        self._config = config
        self._tables: dict[str, TableFacts | None] = {}
        self._meters: dict[str, MeterFacts | None] = {}

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
            or current.phase != "locked"
            or event.seq <= table.last_seq
            or event.event_id in current.event_ids
        ):
            return None
        rules = GAMES.get(current.game)
        if rules is None:
            return None
        try:
            live = Round.thaw(current).indexed()
            cards = settle_check.read(facts, rules, live, event)
            if cards is None:
                return None
            steps = settle(
                self._config, facts.definition, live, event, cards=cards, meter_facts=self._meter
            )
        except Exception:
            return None
        return tuple(steps) if all(self._sure(step) for step in steps) else None

    def _sure(self, step: SettlementStep) -> bool:
        """A step of the kinds the fast path is proven on (a hit on a plain meter only)."""
        if isinstance(step, HitClaim):
            facts = self._meter(step.meter_id)
            return facts is not None and facts.hot
        return type(step) is FixedAwarded or type(step) is EnvyAwarded

    def _table(self, table_id: str) -> TableFacts | None:
        if table_id not in self._tables:
            definition = self._config.tables.get(table_id)
            self._tables[table_id] = (
                None if definition is None else TableFacts(self._config, definition)
            )
        return self._tables[table_id]

    def _meter(self, meter_id: str) -> MeterFacts | None:
        if meter_id not in self._meters:
            definition = self._config.meters.get(meter_id)
            self._meters[meter_id] = None if definition is None else MeterFacts(definition)
        return self._meters[meter_id]
