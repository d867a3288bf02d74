"""The scale-out worker: a faust-streaming app running the round and the meter processor.

Run it as ``jackpot kafka worker`` or ``python -m streams.scaleout.worker`` (same options) under a
supervisor that restarts it (systemd ``Restart=always``, a Kubernetes Deployment): it is
crash-only. Any number of workers share one prefix; the consumer group spreads the partitions.

Effectively-once without faust's ``exactly_once`` (experimental, open duplicate bugs) and with
agent concurrency 1. Each agent pulls events without auto-acknowledgement and, per batch (full,
or nothing more waiting in its queue):

1. puts back any records faust skipped (`streams.scaleout.batch`: checked against the stored
   progress, read from Kafka directly);
2. decides every record with the pure processors (`streams.scaleout.rounds`,
`streams.scaleout.meters`),
   reading state from the faust table and the batch's own earlier results;
3. produces the outputs with an idempotent producer and waits for every acknowledgement
   (`streams.adapters.kafka.sink`);
4. stores each touched key's state record, then the partition's progress (next offset), in the
   faust table, waiting until the changelog writes are acknowledged (each to the partition its
   input came from);
5. commits that progress itself and acknowledges the events to faust.

So whatever a crash interrupts, state is never ahead of outputs and committed offsets are never
ahead of state. What a redelivery repeats is recognised by the offset stamped in each state
record, by event ids (device retries) and by the meter watermarks (claims a restarted round
processor emits again); what reaches the output topics twice carries the same dedupe id
(`streams.scaleout.records`). A failed batch ends the process at once (``os._exit``) so that nothing
runs on with state that lacks it; a stop (SIGTERM) abandons the batch in progress, whose records
are redelivered.

Known limit: a worker stalled longer than the session timeout while still alive can, in a narrow
window, land a state write after the partition's new owner wrote a newer one (faust's
transactional mode would fence it). State writes for partitions revoked mid-batch are dropped
(``jackpot_stale_writes_total``), which narrows the window to the final acknowledgement.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import faust

from controller.config.floor import load_floor_config
from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.security import activate, check_access
from streams.adapters.kafka.settings import WorkerSettings, add_arguments, settings_from
from streams.adapters.kafka.sink import OutputSink
from streams.adapters.kafka.topics import TopicNames, partition_counts
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.scaleout.meters import (
    MeterProcessor,
    MeterRecord,
    meter_record_from_bytes,
    meter_record_to_bytes,
)
from streams.scaleout.rounds import (
    RoundProcessor,
    TableRecord,
    table_record_from_bytes,
    table_record_to_bytes,
)
from streams.scaleout.stage import Stage


def raw_schema() -> Any:
    """Keys and values as bytes, untouched (the processors do their own JSON).

    A new instance per topic: a faust Schema shared with a table silently stops records reaching
    the agent (while faust still acknowledges them).
    """
    return faust.Schema(
        key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw"
    )


def build_app(settings: WorkerSettings) -> faust.App:
    """The faust app with both agents and their tables (topics must be provisioned)."""
    names = TopicNames(settings.prefix)
    config = load_floor_config(settings.config_path.read_text("utf-8"), str(settings.config_path))
    needed = [names.table_events, names.meter_claims, names.liveness]
    counts = partition_counts(settings.bootstrap, needed)
    if len(counts) != len(needed):  # provisioning is idempotent: it adds what a new version needs
        msg = f"topics of prefix {settings.prefix!r} are missing: run `jackpot kafka provision`"
        raise SystemExit(msg)
    app = _app(settings, names)
    wiring = Wiring(app, settings, OutputSink(settings.bootstrap, f"{names.app_id}-out"))
    if settings.metrics_port:
        wiring.metrics.serve(settings.metrics_port, settings.metrics_host)
    wiring.add(
        Stage[TableRecord],
        ("round", "rounds", names.table_events, counts[names.table_events]),
        RoundProcessor(config, names).process,
        (table_record_to_bytes, table_record_from_bytes),
    )
    wiring.add(
        Stage[MeterRecord],
        ("meter", "meters", names.meter_claims, counts[names.meter_claims]),
        MeterProcessor(config, names).process,
        (meter_record_to_bytes, meter_record_from_bytes),
    )
    return app


class Wiring:
    """Builds each processor's table, stage and agent on one app, sharing sink and metrics."""

    def __init__(self, app: faust.App, settings: WorkerSettings, sink: OutputSink) -> None:
        self.app, self.settings, self.sink = app, settings, sink
        self.metrics = WorkerMetrics()

    def add(
        self, kind: Any, names: tuple[str, str, str, int], process: Any, codec: tuple[Any, Any]
    ) -> None:
        """``names``: (processor, table, source topic, partitions)."""
        processor, table_name, topic_name, partitions = names
        # key_type/value_type bytes, not a schema: faust picks the changelog serializers from
        # them (with a schema alone, recovery would decode the changelog as JSON)
        table = self.app.Table(table_name, key_type=bytes, value_type=bytes, partitions=partitions)
        stage = kind(
            name=processor,
            topic=topic_name,
            app=self.app,
            table=table,
            process=process,
            codec=codec,
            sink=self.sink,
            metrics=self.metrics,
            bootstrap=self.settings.bootstrap,
        )
        self.metrics.lag.sources.append(stage.lag)
        batch = self.settings.batch

        async def body(stream: Any) -> None:
            await stage.consume(stream, batch)

        body.__name__ = body.__qualname__ = f"{processor}_processor"
        topic = self.app.topic(topic_name, schema=raw_schema())
        self.app.agent(topic, name=f"{processor}-processor", concurrency=1, sink=None)(body)


def _app(settings: WorkerSettings, names: TopicNames) -> faust.App:
    return faust.App(
        names.app_id,
        broker=f"kafka://{settings.bootstrap}",
        broker_credentials=settings.security.faust_credentials(),
        store="memory://",
        datadir=str(settings.data_dir),
        web_enabled=False,
        topic_replication_factor=1,
        topic_allow_declare=True,
        table_standby_replicas=0,
        stream_wait_empty=False,
        consumer_auto_offset_reset="earliest",
        broker_commit_interval=settings.commit_interval_s,
        broker_session_timeout=settings.session_timeout_s,
        broker_heartbeat_interval=1.0,
        producer_acks=-1,
    )


def run(settings: WorkerSettings) -> int:
    """Run a worker until it is stopped (SIGTERM/SIGINT); the exit code. Its security settings
    become the process's (the confluent clients next to faust read them), after a check that the
    broker accepts them: a wrong password ends the worker with the reason, not in a retry loop."""
    try:
        check_access(settings.bootstrap, settings.security)
    except StoreUnavailable as exc:
        raise SystemExit(f"jackpot kafka worker: {exc}") from exc
    activate(settings.security)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = build_app(settings)
    worker = faust.Worker(app, loglevel=settings.loglevel, quiet=True)
    worker.execute_from_commandline()  # exits the process itself (sys.exit)
    return 0  # pragma: no cover - execute_from_commandline does not return


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m streams.scaleout.worker --prefix P --config FLOOR.toml``."""
    parser = argparse.ArgumentParser(prog="python -m streams.scaleout.worker", description=__doc__)
    add_arguments(parser)
    return run(settings_from(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
