"""The settlements the fast path is sure of: one gate for both fast settlers.

The core's session (`controller.fast.hot.decide_settle`) and the Kafka round processor
(`streams.scaleout.fast_settle`) settle on the fast path only when the reference would accept the
settlement and every step is of a kind the fast path is proven on (`tests/controller/fast/`): a
locked round of a known game, the cards read as `check_settlement` reads them
(`settle_check.read`), and only fixed awards, Envy Bonuses and hits on plain ("hot") meters. In
every other case, and on any exception, `sure_steps` answers None and the caller asks the
reference, which accepts or words the refusal as it always did.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.config.floor import FloorConfig
from controller.fast import settle_check
from controller.fast.records import Round
from controller.fast.settle import settle
from controller.fast.tables import MeterFacts, TableFacts
from controller.meter import HitClaim
from controller.model.events import EnvyAwarded, FixedAwarded
from controller.model.games import GAMES
from controller.model.table_events import RoundSettled
from controller.rules.settlement import SettlementStep


def sure_steps(
    config: FloorConfig,
    facts: TableFacts,
    current: Round,
    event: RoundSettled,
    meter_facts: Callable[[str], MeterFacts | None],
) -> list[SettlementStep] | None:
    """The settlement's steps in order (`settle_round`'s), or None when the fast path is not
    sure of them (module docstring)."""
    rules = GAMES.get(current.game)
    if current.phase != "locked" or rules is None:
        return None
    try:
        cards = settle_check.read(facts, rules, current, event)
        if cards is None:
            return None
        steps = settle(
            config, facts.definition, current, event, cards=cards, meter_facts=meter_facts
        )
    except Exception:  # the reference repeats it and answers (or raises) the same
        return None
    for step in steps:
        if isinstance(step, HitClaim):
            rates = meter_facts(step.meter_id)
            if rates is None or not rates.hot:
                return None
        elif type(step) is not FixedAwarded and type(step) is not EnvyAwarded:
            return None
    return steps
