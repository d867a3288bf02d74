"""The metrics sensor: Prometheus numbers derived from the controller's durable event batches.

A sensor seam (after faust's ``sensors/base.py``): the core never imports `prometheus_client`; the
controller hands each durable batch to `MetricsSensor.listener`, and the HTTP edge reports what
only it sees (ingest time, authentication failures). Each sensor owns its `CollectorRegistry`, not
the process-global one, so tests can build many apps in one process without name clashes.

Label values are always from a small fixed set or the configuration's meter and table ids: never
seat, round or event ids, never a table id a device sent, and never raw rejection text (an attacker
would choose the text and blow up the series count). Rejection reasons are sorted into
`REASON_CLASSES` by `reason_class`.

Liveness gauges are computed at each scrape by
`streams.adapters.prometheus.liveness.LivenessCollector`
over the controller's tracker (the Kafka engine's signage projector registers the same one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the sensor is attached to an engine; it never builds one
    from streams.embedded.engine import EmbeddedController, Status

import collections
import re
from collections.abc import Sequence
from typing import Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from controller.config.floor import FloorConfig
from controller.model.events import (
    ConfigActivated,
    ContributionRecorded,
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    ProgressiveHit,
)
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.table_events import TableEventBase
from streams.adapters.prometheus.liveness import LivenessCollector
from streams.adapters.prometheus.money import MoneyCounter
from streams.liveness.tracker import HEARTBEAT_NOTED, LivenessTracker

SUBUNITS_PER_DOLLAR: Final = 100 * SUBUNITS_PER_CENT
AWARD_KINDS: Final = ("progressive", "fixed", "envy")
OPERATOR_COMMANDS: Final = frozenset({"ActivateConfig", "CorrectMeter", "ValidateHit", "PayHit"})
_TABLE_TYPES: Final = (
    "line|body|event|round_opened|wager_placed|wagers_locked|decision|round_settled|round_voided"
    "|heartbeat"
)
#: (class, pattern) in the order tried; the first match wins, "other" if none does.
_RULES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    # First: a device token posting for a table it is not bound to (`streams.http.tokens`), whatever
    # the item held; the reason starts with the token's name, which holds no space or quote.
    ("token_scope", re.compile(r"^token '[^' ]+' may post for tables? ")),
    ("size", re.compile(r"over the limit|too large")),
    ("schema", re.compile(rf"^({_TABLE_TYPES})(\.[A-Za-z0-9_]+|\[[^\]]*\])*: ")),
    ("unknown_table", re.compile(r"^unknown table ")),
    ("sequence", re.compile(r"^seq \d+ is not after")),
    ("duplicate", re.compile(r"^duplicate event_id|was already used by")),
    ("cards", re.compile(r"\bcards?\b|\bhand needs\b|\bone deck\b")),
    (
        "state",
        re.compile(
            r"wager after|needs round|current round|is still|not locked|already decided|"
            r"already bought|void after settlement|no floor configuration"
        ),
    ),
    (
        "rules",
        re.compile(
            r"not offered|does not exist at table|differs from the meter|cannot be placed|"
            r"not another seat|placed no ante|is not a decision|does not match the ante|"
            r"already has a|must discard|plays \w+, not"
        ),
    ),
)
REASON_CLASSES: Final = (*(name for name, _ in _RULES), "operator", "other")

#: The media type of the text `MetricsSensor.exposition` returns.
EXPOSITION_CONTENT_TYPE = CONTENT_TYPE_LATEST


def reason_class(reason: str, event_type: str = "") -> str:
    """The fixed label a rejection counts under (one of `REASON_CLASSES`)."""
    if event_type in OPERATOR_COMMANDS:
        return "operator"
    for name, pattern in _RULES:
        if pattern.search(reason):
            return name
    return "other"


class MetricsSensor:
    """Counters and gauges for one controller, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        meter, kind = ["meter"], ["kind"]
        reg = self.registry
        self.meter_amount = Gauge(
            "jackpot_meter_amount_dollars", "Meter amount shown", meter, registry=reg
        )
        self.meter_reserve = Gauge(
            "jackpot_meter_reserve_dollars", "Meter reserve (hidden pool)", meter, registry=reg
        )
        self.meter_overflow = Gauge(
            "jackpot_meter_overflow_dollars",
            "Contributed above the meter's ceiling, carried to its next 100% hit's restart",
            meter,
            registry=reg,
        )
        self.contributions = Counter(
            "jackpot_contributions", "Progressive wagers that funded a meter", meter, registry=reg
        )
        self.contributed = MoneyCounter(  # exact: integer sub-units, divided once per scrape
            "jackpot_contributed_dollars",
            "Primary plus reserve contributed",
            "meter",
            SUBUNITS_PER_DOLLAR,
        )
        reg.register(self.contributed)
        self.awards = Counter("jackpot_awards", "Awards (one per player paid)", kind, registry=reg)
        self.awarded = MoneyCounter(
            "jackpot_awarded_dollars", "Amounts awarded", "kind", 100, AWARD_KINDS
        )
        reg.register(self.awarded)
        self.rejections = Counter(
            "jackpot_rejections", "Refused inputs by class", ["reason_class"], registry=reg
        )
        self.ingest_events = Counter(
            "jackpot_ingest_events", "Table events posted, by outcome", ["status"], registry=reg
        )
        self.ingest_seconds = Histogram(
            "jackpot_ingest_seconds", "Time to decide and durably append one batch", registry=reg
        )
        self.auth_failures = Counter(
            "jackpot_http_auth_failures", "Refused HTTP credentials", ["reason"], registry=reg
        )
        self.log_position = Gauge("jackpot_log_position", "Last log position", registry=reg)
        self.last_event = Gauge(
            "jackpot_last_event_timestamp_seconds",
            "When the last table event was accepted (the stall alert watches it)",
            registry=reg,
        )
        self.signage_dirty = Gauge(
            "jackpot_signage_dirty_meters",
            "Meters whose latest value has not reached the signage read model",
            registry=reg,
        )
        self._liveness_metrics()
        for award_kind in AWARD_KINDS:
            self.awards.labels(award_kind)  # present at 0, so rates exist before the first award
        self._controller: EmbeddedController | None = None

    def _liveness_metrics(self) -> None:
        self.heartbeats = Counter(
            "jackpot_heartbeats",
            "Heartbeats noted (a refused one is a rejection)",
            registry=self.registry,
        )
        self.registry.register(LivenessCollector(self._liveness_source))

    def _liveness_source(self) -> tuple[LivenessTracker, FloorConfig | None] | None:
        controller = self._controller
        if controller is None:
            return None
        return controller.liveness, controller.partial_state().config

    def attach(self, controller: EmbeddedController) -> None:
        """Subscribe to ``controller`` and set the meter gauges from its current state."""
        self._controller = controller
        controller.subscribe(self.listener)
        self._set_meters(list(controller.partial_state().meters))

    def listener(self, events: Sequence[Event]) -> None:
        """Count one durable batch; then set the gauges of the meters it touched from the state."""
        touched: set[str] = set()
        if any(isinstance(event, TableEventBase) for event in events):
            self.last_event.set_to_current_time()
        for event in events:
            self._count(event)
            if isinstance(event, ConfigActivated) and self._controller is not None:
                touched.update(self._controller.partial_state().meters)
            meter_id = getattr(event, "meter_id", None)
            if isinstance(meter_id, str):
                touched.add(meter_id)
        self._set_meters(sorted(touched))

    def _count(self, event: Event) -> None:
        match event:
            case ContributionRecorded():
                self.contributions.labels(event.meter_id).inc()
                self.contributed.add(event.meter_id, event.primary_sub + event.reserve_sub)
            case ProgressiveHit():
                for share in event.winners:
                    self._award("progressive", share.amount_cents)
            case FixedAwarded():
                self._award("fixed", event.amount_cents)
            case EnvyAwarded():
                self._award("envy", event.amount_cents)
            case EventRejected():
                self.rejections.labels(reason_class(event.reason, event.event_type)).inc()
            case _:
                return

    def _award(self, kind: str, cents: int) -> None:
        self.awards.labels(kind).inc()
        self.awarded.add(kind, cents)

    def _set_meters(self, meter_ids: Sequence[str]) -> None:
        if self._controller is None:
            return
        state = self._controller.partial_state()  # meters only: no table decoded after a restart
        for meter_id in meter_ids:
            meter = state.meters.get(meter_id)
            if meter is not None:
                self.meter_amount.labels(meter_id).set(meter.amount_sub / SUBUNITS_PER_DOLLAR)
                self.meter_reserve.labels(meter_id).set(meter.reserve_sub / SUBUNITS_PER_DOLLAR)
                self.meter_overflow.labels(meter_id).set(meter.overflow_sub / SUBUNITS_PER_DOLLAR)
        self.log_position.set(self._controller.position)

    def observe_ingest(self, seconds: float, statuses: Sequence[Status]) -> None:
        """One posted batch: how long it took and how each event fared."""
        self.ingest_seconds.observe(seconds)
        for status, count in collections.Counter(statuses).items():
            self.ingest_events.labels(status).inc(count)

    def observe_heartbeats(self, reasons: Sequence[str]) -> None:
        """Count the heartbeats noted in one posted batch (by their answer's reason)."""
        noted = sum(1 for reason in reasons if reason == HEARTBEAT_NOTED)
        if noted:
            self.heartbeats.inc(noted)

    def auth_failed(self, reason: str) -> None:
        """A refused credential; ``reason`` is one of missing, malformed, invalid, forbidden."""
        self.auth_failures.labels(reason).inc()

    def exposition(self) -> bytes:
        """The registry in the Prometheus text format."""
        return generate_latest(self.registry)

    def controller(self) -> EmbeddedController | None:
        """The controller attached, if any."""
        return self._controller
