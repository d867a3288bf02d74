"""The read side's metrics (`streams.scaleout.readside`): the surveillance aggregates of each
table's current hour and gaming day, the contribution-rate alert, and what the read side did with
each record.

The aggregates are computed at each scrape from a snapshot the read side keeps (plain rows, so
this adapter knows nothing of faust or Kafka): one family per field, labels ``table`` and
``window`` (``hour`` or ``gaming_day``), the values integers (counts, cents, sub-units). Grafana
reads them as they are; ``jackpot_readside_window_start_seconds`` says which hour or day a
series is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

#: Each aggregate field: its help text (the metric is ``jackpot_readside_<field>``).
FIELDS: Mapping[str, str] = {
    "rounds": "Rounds settled at the table in the window",
    "contributions": "Contributions recorded for the table in the window",
    "wager_cents": "Wagers (cents) behind the window's contributions",
    "contributed_sub": "Contributed to meters and reserves in the window (sub-units)",
    "reversals": "Contribution reversals (voided rounds) in the window",
    "reversed_sub": "Contributions taken back by reversals in the window (sub-units)",
    "hits": "Progressive hits at the table in the window",
    "hit_cents": "Progressive awards (cents) at the table in the window",
    "awards": "Fixed and envy awards at the table in the window",
    "award_cents": "Fixed and envy awards (cents) at the table in the window",
}


@dataclass(frozen=True, slots=True)
class WindowRow:
    """One table's window as the metrics show it."""

    table_id: str
    window: str  # "hour" or "gaming_day"
    start_seconds: float
    values: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class ReadSideSnapshot:
    """What a scrape shows: the latest hour and gaming day of every table, the tables whose
    latest closed hour raised an alert, and the newest event time seen (seconds)."""

    rows: Sequence[WindowRow] = ()
    alerting: Mapping[str, str] = field(default_factory=dict)  # table -> reason
    tables: Sequence[str] = ()
    event_time_seconds: float = 0.0


class ReadSideCollector(Collector):
    """The aggregate gauges, computed from the read side's latest snapshot at each scrape."""

    def __init__(self, source: Callable[[], ReadSideSnapshot]) -> None:
        self._source = source

    def describe(self) -> Iterator[Metric]:
        yield from _families().values()

    def collect(self) -> Iterator[Metric]:
        families = _families()
        snapshot = self._source()
        for row in snapshot.rows:
            labels = [row.table_id, row.window]
            for name, value in row.values.items():
                families[name].add_metric(labels, value)
            families["window_start_seconds"].add_metric(labels, row.start_seconds)
        for table_id in snapshot.tables:
            families["alert"].add_metric([table_id], 1 if table_id in snapshot.alerting else 0)
        families["event_time_seconds"].add_metric([], snapshot.event_time_seconds)
        yield from families.values()


def _families() -> dict[str, GaugeMetricFamily]:
    labels = ["table", "window"]
    families = {
        name: GaugeMetricFamily(f"jackpot_readside_{name}", text, labels=labels)
        for name, text in FIELDS.items()
    }
    families["window_start_seconds"] = GaugeMetricFamily(
        "jackpot_readside_window_start_seconds",
        "Start (Unix seconds) of the hour or gaming day the table's series show",
        labels=labels,
    )
    families["alert"] = GaugeMetricFamily(
        "jackpot_readside_contribution_alert",
        "1 while the table's latest closed hour is far from its usual contribution rate",
        labels=["table"],
    )
    families["event_time_seconds"] = GaugeMetricFamily(
        "jackpot_readside_event_time_seconds",
        "The newest event time (occurred_at, Unix seconds) the read side has aggregated",
    )
    return families


class ReadSideMetrics:
    """The read side's registry: the collector, the alert counter, the record outcomes, the
    holes checked, the records faust skipped."""

    def __init__(self, source: Callable[[], ReadSideSnapshot]) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(ReadSideCollector(source))
        self.alerts = Counter(
            "jackpot_readside_contribution_alerts",
            "Contribution-rate alerts raised (each closed hour of a table once per process)",
            ["table", "reason"],
            registry=self.registry,
        )
        self.whole = Gauge(
            "jackpot_readside_owns_every_partition",
            "1 while this read side is assigned every partition of the events topic "
            "(its contribution-rate alert judges hours only then)",
            registry=self.registry,
        )
        self.records = Counter(
            "jackpot_readside_records",
            "Records of the events topic the read side took, by outcome "
            "(applied, redelivered, ignored, unreadable)",
            ["outcome"],
            registry=self.registry,
        )
        self.holes = Counter(
            "jackpot_readside_holes_checked",
            "Holes in the offsets faust delivered (transaction markers, aborted records) read "
            "and found empty before faust could commit past them",
            registry=self.registry,
        )
        self.filled = Counter(
            "jackpot_readside_records_skipped_by_faust",
            "Committed records faust did not hand to the agent, read from the broker and "
            "applied in their place",
            registry=self.registry,
        )

    def serve(self, port: int, addr: str = "127.0.0.1") -> None:
        """Expose ``/metrics`` on ``addr:port`` (a daemon thread)."""
        start_http_server(port, addr=addr, registry=self.registry)
