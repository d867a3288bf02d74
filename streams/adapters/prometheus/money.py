"""Money counters exact to the cent: totals kept as integers, turned into dollars at each scrape.

A `prometheus_client.Counter` adds floats: 0.14 added 2,920 times reads 408.7999999999958, a figure
an accountant cannot reconcile. `MoneyCounter` keeps each label's total in integer units (cents,
or the meters' sub-units of a millionth of a cent) and divides once per scrape: Python's
int / int is correctly rounded, so the value written is the float nearest the exact total and
its shortest text is the exact decimal (408.8). The exposition is the same as a Counter's
(``NAME_total`` with one label), so dashboards and alert rules read it unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector


class MoneyCounter(Collector):
    """A counter of money by one label, exact: whole ``per_dollar`` units, never floats."""

    def __init__(
        self, name: str, documentation: str, label: str, per_dollar: int, labels: Iterable[str] = ()
    ) -> None:
        self._name, self._doc, self._label, self._per_dollar = (
            name,
            documentation,
            label,
            per_dollar,
        )
        self._lock = threading.Lock()
        self._totals: dict[str, int] = dict.fromkeys(labels, 0)

    def add(self, label: str, units: int) -> None:
        """Add ``units`` (a whole, non-negative number of the counter's units) under ``label``."""
        if units < 0:
            msg = f"{self._name}: a counter only rises, got {units}"
            raise ValueError(msg)
        with self._lock:
            self._totals[label] = self._totals.get(label, 0) + units

    def units(self, label: str) -> int:
        """The exact total under ``label`` in the counter's units."""
        with self._lock:
            return self._totals.get(label, 0)

    def collect(self) -> Iterator[Metric]:
        """One family; each value the exact total divided once (correctly rounded)."""
        family = CounterMetricFamily(self._name, self._doc, labels=[self._label])
        with self._lock:
            totals = sorted(self._totals.items())
        for label, units in totals:
            family.add_metric([label], units / self._per_dollar)
        yield family
