"""Whether this read side owns every partition of the events topic: its contribution-rate alert
is exact only then (`app`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


@dataclass
class Ownership:
    """Whether this process owns every partition of the events topic: the alert is exact only
    then (a table's contributions come on its meters' partitions, so each process of several
    holds part of every table's hour and would judge it on part of the data). The deployment
    runs one replica; should two run, each says so once and holds its alerts until one of them
    owns every partition again (module docstring)."""

    topic: str
    partitions: int
    whole: bool = False
    said: str = ""
    owned: frozenset[int] = frozenset()

    def check(self, app: Any) -> bool:
        """Ask faust for the assignment now; log a change (nothing before the first)."""
        assigned = app.consumer.assignment()
        self.owned = frozenset(tp.partition for tp in assigned if tp.topic == self.topic)
        owned = len(self.owned)
        self.whole = owned == self.partitions
        state = "" if owned == 0 else "whole" if self.whole else f"{owned}"
        if state and state != self.said:
            if self.whole:
                logger.info("readside: owns every partition of %s: alerts judged", self.topic)
            else:
                logger.warning(PARTIAL, owned, self.partitions, self.topic)
            self.said = state
        return self.whole


PARTIAL = (
    "readside: assigned %d of %d partitions of %s: contribution-rate alerts are held until one "
    "read side owns them all (run one replica)"
)
