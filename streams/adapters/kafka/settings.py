"""The worker's settings and command-line options, kept apart from `streams.scaleout.worker` so the
``jackpot`` command can list its options without building a worker."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

from controller.model.errors import ConfigError
from streams.adapters.kafka.security import (
    KafkaSecurity,
    add_security_arguments,
    security_from_args,
)

DEFAULT_BOOTSTRAP = "127.0.0.1:19092"
#: Fault injection for tests: SIGKILL the worker right after its N-th batch's outputs are
#: produced (flushed to the broker) and before its transaction commits: the batch must vanish.
KILL_AFTER_OUTPUTS_ENV = "JACKPOT_KAFKA_KILL_AFTER_OUTPUTS"


def default_bootstrap() -> str:
    """``KAFKA_BOOTSTRAP`` or the address `scripts/kafka.sh` listens on."""
    return os.environ.get("KAFKA_BOOTSTRAP") or DEFAULT_BOOTSTRAP


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """What a worker needs; every field but the timings has a command-line option (the security
    settings also come from the environment, see `streams.adapters.kafka.security`)."""

    bootstrap: str
    prefix: str
    config_path: Path
    data_dir: Path
    metrics_port: int = 0
    metrics_host: str = "127.0.0.1"
    batch: int = 500
    session_timeout_s: float = 6.0
    commit_interval_s: float = 0.01
    loglevel: str = "info"
    transactional_id: str = ""
    security: KafkaSecurity = field(default_factory=KafkaSecurity)
    mystery_key: Path | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The worker's command-line options."""
    parser.add_argument("--bootstrap", default=default_bootstrap(), help="Kafka bootstrap servers")
    parser.add_argument("--prefix", required=True, help="topic prefix (one deployment)")
    parser.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("var/kafka-worker"),
        help="where a floor with a mystery level keeps its sealing key when --mystery-key names "
        "none (<data-dir>/<prefix>/mystery.key); state is kept in memory and restored from the "
        "changelogs",
    )
    parser.add_argument("--metrics-port", type=int, default=0, help="Prometheus port; 0 = off")
    parser.add_argument(
        "--metrics-host", default="127.0.0.1", help="address the metrics server binds"
    )
    parser.add_argument("--batch", type=int, default=500, help="records per batch at most")
    parser.add_argument(
        "--commit-interval",
        type=float,
        default=0.01,
        help="the least seconds from one transaction's start to the next's: a batch holds what "
        "came while the previous one committed, and waits for more until then (or --batch "
        "records); 0 = begin as soon as the input is drained and the previous commit is done",
    )
    parser.add_argument(
        "--session-timeout",
        type=float,
        default=6.0,
        help="seconds without a heartbeat before the group gives this worker's partitions away",
    )
    parser.add_argument(
        "--slot",
        dest="transactional_id",
        default=os.environ.get("JACKPOT_KAFKA_WORKER_SLOT", ""),
        help="this worker's name among its deployment's, giving the transactional.id "
        "<prefix>-controller-SLOT (default: random per process); a stable one per supervised "
        "slot (a StatefulSet pod name) lets a restarted worker abort its predecessor's open "
        "transaction at once instead of after the transaction timeout, and makes it a static "
        "group member (group.instance.id): restarted in its slot it takes its predecessor's "
        "partitions at once, with no rebalance (a slot stopped for good gives them away after "
        "--session-timeout); never run two workers in one slot",
    )
    parser.add_argument("--loglevel", default="info", help="log level (info shows rebalances)")
    parser.add_argument(
        "--mystery-key",
        type=Path,
        default=Path(env) if (env := os.environ.get("JACKPOT_MYSTERY_KEY_FILE")) else None,
        help="the file sealing mystery levels' triggers (64 hex digits, created 0600 if absent; "
        "default JACKPOT_MYSTERY_KEY_FILE, else <data-dir>/<prefix>/mystery.key): the same file "
        "for every worker of the prefix, kept apart from the broker",
    )
    add_security_arguments(parser)


def settings_from(args: argparse.Namespace) -> WorkerSettings:
    """Settings from parsed options (the data directory gets the prefix appended); exits with
    the reason when the security settings are incomplete or contradict each other."""
    try:
        security = security_from_args(args)
    except ConfigError as exc:
        raise SystemExit(f"jackpot kafka worker: {exc}") from exc
    return WorkerSettings(
        bootstrap=args.bootstrap,
        prefix=args.prefix,
        config_path=args.config,
        data_dir=args.data_dir / args.prefix,
        metrics_port=args.metrics_port,
        metrics_host=args.metrics_host,
        batch=args.batch,
        session_timeout_s=args.session_timeout,
        commit_interval_s=args.commit_interval,
        loglevel=args.loglevel,
        transactional_id=args.transactional_id,
        security=security,
        mystery_key=args.mystery_key,
    )
