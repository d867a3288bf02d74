"""The liveness gauges, shared by both engines: computed at each scrape from a tracker.

Liveness (`streams.liveness.tracker`) is time-driven, not event-driven: a table turns unplayable
because
nothing arrived, so nothing would ever set a gauge at the right moment. A collector computes them
when Prometheus asks: for every table ``jackpot_table_silence_seconds{table}`` and for every link
``jackpot_progressive_unplayable{meter,table}`` (1 or 0), and per meter
``jackpot_meter_unplayable_tables{meter}``. The embedded engine's sensor
(`streams.adapters.prometheus.sensor`) and
the Kafka engine's signage projector (`streams.scaleout.liveness`) register the same collector over
their own tracker, so the alert rules (``JackpotTableFeedSilent``, ``JackpotProgressiveNotInPlay``)
read the same names on either engine.

One family per metric, built in one pass: about 50,000 series for 10,000 tables of four
progressives (a `Gauge.labels` call per series would take seconds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from controller.config.floor import FloorConfig
from streams.liveness.tracker import LivenessTracker, meters_down

#: What a collector reads at each scrape: the tracker and the active configuration (None: not
#: running yet, so the families are exported empty).
LivenessSource = Callable[[], tuple[LivenessTracker, FloorConfig | None] | None]


class LivenessCollector(Collector):
    """The liveness gauges of one tracker (module docstring)."""

    def __init__(self, source: LivenessSource) -> None:
        self._source = source

    def describe(self) -> Iterator[Metric]:
        """The families without samples (so registering does not compute them)."""
        yield from _families()

    def collect(self) -> Iterator[Metric]:
        """Every configured table's silence and every link's playability, now."""
        families = _families()
        unplayable, unplayable_tables, silence = families
        tracker, config = self._source() or (None, None)
        if tracker is None or config is None:
            yield from families
            return
        statuses = tracker.statuses(config)
        uptime = tracker.uptime()
        for table_id, status in statuses.items():
            silent = status.silent_seconds
            silence.add_metric([table_id], uptime if silent is None else silent)
            for meter_id in dict.fromkeys(config.tables[table_id].links.values()):
                unplayable.add_metric([meter_id, table_id], 0 if status.playable else 1)
        down = meters_down(config, statuses)
        for meter_id in config.meters:
            unplayable_tables.add_metric([meter_id], len(down.get(meter_id, ())))
        yield from families


def _families() -> tuple[GaugeMetricFamily, GaugeMetricFamily, GaugeMetricFamily]:
    return (
        GaugeMetricFamily(
            "jackpot_progressive_unplayable",
            "1 while the meter's progressive is unplayable at the table (silent or unknown)",
            labels=["meter", "table"],
        ),
        GaugeMetricFamily(
            "jackpot_meter_unplayable_tables",
            "How many of the meter's linked tables are unplayable",
            labels=["meter"],
        ),
        GaugeMetricFamily(
            "jackpot_table_silence_seconds",
            "Seconds since the table was last heard (since the controller started if never)",
            labels=["table"],
        ),
    )
