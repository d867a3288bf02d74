"""Benchmarks: speed and memory goals measured against a reference in the same run (issue 6).

``python -m bench`` runs every row, prints the table and writes ``bench/results/``; see
``bench/README.md``. Each row lives in its own module exposing ``run_rows(settings) -> list[Row]``
(`bench.common`), registered below by name for ``--only``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from bench.common import Row, Settings
from streams.compiled import install

install()  # before any row imports the fast path: its mypyc build when current (make fast)

BENCHMARKS: dict[str, str] = {
    "core": "bench.core",
    "door": "bench.door",
    "engine": "bench.engine",
    "replay": "bench.replay",
    "scale": "bench.scale",
    "latency": "bench.latency",
    # The Kafka row needs a broker (KAFKA_BOOTSTRAP); without one it is reported as skipped.
    "kafka": "bench.kafka",
    # wagers_locked -> meter events read_committed at 2,000 events/s, one worker (a broker).
    "kafka-latency": "bench.kafka_latency",
    # The worker's two processors without a broker: CPU µs per event against json.loads only.
    "kafka-procs": "bench.kafka_procs",
    # The signage projector's row needs a broker and Redis (REDIS_URL); else skipped.
    "kafka-signage": "bench.kafka_signage",
    # The faust read side against a plain consumer; needs a broker, else skipped.
    "kafka-readside": "bench.kafka_readside",
}

RowsOf = Callable[[Settings], list[Row]]


class NotBuilt(Exception):
    """A registered benchmark whose module does not exist yet."""


def load(name: str) -> RowsOf:
    """The ``run_rows`` of benchmark ``name``; NotBuilt if its module is not written yet."""
    module_name = BENCHMARKS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        msg = f"{name}: {module_name.replace('.', '/')}.py is not written yet"
        raise NotBuilt(msg) from exc
    rows_of: RowsOf = module.run_rows
    return rows_of
