"""``jackpot kafka provision|ingest|worker|dump``: the scale-out engine from the command line.

::

    jackpot kafka provision --prefix floor1 --config FLOOR.toml    # topics, config, meter seeds
    jackpot kafka worker    --prefix floor1 --config FLOOR.toml    # run under a supervisor
    jackpot kafka ingest    --prefix floor1 EVENTS.jsonl           # idempotent producer
    jackpot kafka dump      --prefix floor1 --config FLOOR.toml    # meters, awards, rejected
    jackpot kafka reconcile --prefix floor1 [--gaming-day D] [--state]   # ledgers from the topics
    jackpot kafka signage   --prefix floor1 --config FLOOR.toml    # meters, playability -> Redis
    jackpot kafka pages     --config FLOOR.toml --redis URL        # signs and surveillance pages
    jackpot kafka grant     --prefix floor1 --role worker --principal User:NAME   # ACLs
    jackpot kafka readside  --prefix floor1                        # aggregates, alerts (faust)

``--bootstrap`` defaults to ``KAFKA_BOOTSTRAP`` (else ``127.0.0.1:19092``). The worker is a
transactional confluent-kafka loop (`streams.scaleout.worker`), imported only by ``worker``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

from controller.config.floor import load_floor_config
from controller.model.errors import JackpotError
from controller.model.events import ConfigActivated
from streams.adapters.kafka.security import activate_from, add_security_arguments
from streams.adapters.kafka.settings import add_arguments, default_bootstrap, settings_from
from streams.adapters.kafka.sink import OutputSink
from streams.adapters.kafka.topics import (
    Layout,
    TopicNames,
    provision,
    readside_specs,
    topic_specs,
)
from streams.cli import kafka_grant, kafka_migrate, kafka_readside, kafka_reconcile
from streams.cli.common import OneLineParser, fail, run_handler
from streams.clock import utc_now
from streams.codec import Output
from streams.scaleout.dump import dumps_document, fold_document, read_events, worker_meters
from streams.scaleout.ingest import ingest_file
from streams.scaleout.meter_ops import op_to_bytes, seed_op
from streams.scaleout.records import event_output


def add_parser(sub: Any) -> None:
    """Register ``jackpot kafka`` and its subcommands."""
    parser = sub.add_parser("kafka", help="the scale-out engine on Kafka")
    kafka = parser.add_subparsers(dest="kafka_command", required=True)
    _provision_parser(kafka)
    ingest = kafka.add_parser("ingest", help="produce a JSONL file of table events")
    _common(ingest)
    ingest.add_argument("--no-resume", action="store_true", help="do not skip ids on the topic")
    ingest.add_argument("events", type=Path, help="table events, one JSON object per line")
    ingest.set_defaults(handler=handle_ingest)
    worker = kafka.add_parser("worker", help="run the round and meter processors (transactional)")
    add_arguments(worker)
    worker.set_defaults(handler=handle_worker)
    dump = kafka.add_parser("dump", help="meters, awards and rejections from the topics")
    _common(dump)
    dump.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    dump.add_argument(
        "--source",
        choices=("events", "state"),
        default="events",
        help="meters from a fold of the events topic, or from the workers' stored state",
    )
    dump.set_defaults(handler=handle_dump)
    kafka_reconcile.add_parser(kafka)
    kafka_migrate.add_parser(kafka)
    from streams.http import kafka_pages  # noqa: PLC0415  # kafka signage, pages
    from streams.scaleout import signage as kafka_signage  # noqa: PLC0415  # kafka signage, pages

    kafka_signage.add_parser(kafka)
    kafka_pages.add_parser(kafka)
    kafka_grant.add_parser(kafka)
    kafka_readside.add_parser(kafka)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bootstrap", default=default_bootstrap(), help="Kafka bootstrap servers")
    parser.add_argument("--prefix", required=True, help="topic prefix (one deployment)")
    add_security_arguments(parser)


def _provision_parser(kafka: Any) -> None:
    parser = kafka.add_parser("provision", help="create the topics; activate and seed meters")
    _common(parser)
    parser.add_argument("--config", type=Path, help="floor configuration: record it, seed meters")
    parser.add_argument("--table-partitions", type=int, default=6, help="table-events partitions")
    parser.add_argument("--meter-partitions", type=int, default=6, help="meter-claims partitions")
    parser.add_argument("--partitions", type=int, default=6, help="events, awards, dead-letter")
    parser.add_argument("--replication", type=int, default=1, help="replication factor")
    parser.set_defaults(handler=handle_provision)


def handle_provision(args: argparse.Namespace) -> int:
    """Create missing topics (the read side's too: its user may not create any); with --config,
    record the configuration and seed every meter."""
    layout = Layout(args.table_partitions, args.meter_partitions, args.partitions, args.replication)
    names = TopicNames(args.prefix)
    try:
        activate_from(args)
        specs = topic_specs(names, layout)
        specs += readside_specs(names, args.partitions, args.replication)
        created = provision(args.bootstrap, specs, args.replication)
        if args.config is not None:
            activate(args.bootstrap, names, args.config, first=names.events in created)
    except JackpotError as exc:  # ConfigError included
        print(f"jackpot kafka provision: {exc}", file=sys.stderr)
        return 2
    print(f"jackpot kafka provision: created {len(created)} topic(s) for {names.prefix}")
    return 0


def activate(bootstrap: str, names: TopicNames, config_path: Path, *, first: bool) -> None:
    """Seed every configured meter (a no-op for a meter that has state) and, on the first
    provisioning, record the configuration on the events topic."""
    text = config_path.read_text(encoding="utf-8")
    config = load_floor_config(text, str(config_path))
    now = utc_now()
    outputs = [
        Output(
            names.meter_claims, meter_id, op_to_bytes(seed_op(meter_id, now)), f"seed:{meter_id}"
        )
        for meter_id in config.meters
    ]
    if first:
        digest = hashlib.sha256(text.encode()).hexdigest()
        event = ConfigActivated(
            version=1,
            source=str(config_path),
            text=text,
            digest=digest,
            by="provision",
            occurred_at=now,
        )
        outputs.append(event_output(names.events, "floor", event, f"config:{digest}"))
    sink = OutputSink(bootstrap, f"{names.app_id}-provision")
    sink.produce(outputs)
    sink.close()


def handle_ingest(args: argparse.Namespace) -> int:
    """Produce the file's events; print what was produced and skipped."""
    names = TopicNames(args.prefix)
    if not args.events.is_file():  # before the broker is asked anything
        return fail("jackpot kafka ingest", f"{args.events}: no such events file")
    try:
        activate_from(args)
        summary = ingest_file(args.bootstrap, names, args.events, resume=not args.no_resume)
    except JackpotError as exc:
        print(f"jackpot kafka ingest: {exc}", file=sys.stderr)
        return 1
    print(
        f"jackpot kafka ingest: produced {summary.produced}, skipped {summary.skipped} "
        f"already on {names.table_events}",
        file=sys.stderr,
    )
    return 0


def handle_worker(args: argparse.Namespace) -> int:
    """Run a worker (imported only now: the other subcommands start fast)."""
    from streams.scaleout import worker as kafka_worker  # noqa: PLC0415

    return kafka_worker.run(settings_from(args))  # it settles the collector (streams.process)


def handle_dump(args: argparse.Namespace) -> int:
    """Print meters, awards and rejections as JSON."""
    names = TopicNames(args.prefix)
    try:
        config = load_floor_config(args.config.read_text(encoding="utf-8"), str(args.config))
        activate_from(args)
        fold = read_events(args.bootstrap, names)
        meters = worker_meters(args.bootstrap, names) if args.source == "state" else fold.meters
    except JackpotError as exc:
        print(f"jackpot kafka dump: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(dumps_document(fold_document(config, meters, fold)) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m streams.cli.kafka SUBCOMMAND ...`` (the same as ``jackpot kafka``)."""
    parser = OneLineParser(prog="python -m streams.cli.kafka")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["kafka", *(sys.argv[1:] if argv is None else argv)])
    return run_handler(args)


if __name__ == "__main__":
    sys.exit(main())
