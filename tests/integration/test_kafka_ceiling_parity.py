"""Parity of ceilings with a carried overflow (NY 5320.8, NJ 13:69E-1.39A): one simulated stream,
on one partition, through the embedded reference (``jackpot replay``) and the Kafka engine, on a
floor whose ceilings are crossed within minutes. Meters (with their overflow), awards and
rejections must be equal to the cent; every meter conserves with its overflow.

(The Kafka engine runs ``carry``; ``divert:`` is refused at its start, see
`tests/streams/scaleout/test_meter_ceiling.py`.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.config.floor import load_floor_config
from streams.cli.replay import replay_file
from streams.scaleout.dump import award_sort_key, fold_document, read_events
from streams.scaleout.ingest import ingest_file
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import (
    CONFIG,
    Worker,
    check_log,
    deploy,
    simulate,
    wait_caught_up,
)

pytestmark = pytest.mark.integration

LIMITS = (
    ("tcp-progressive", "pa-649a12e-A", 'ceiling = "1000.50"'),
    ("tcp-five-card", "pa-649a12h", 'ceiling = "10001.00"\noverflow = "carry"'),
    ("tcp-five-card-bonus", "pa-649a12i", 'ceiling = "10000.80"'),
)


def capped_config(folder: Path) -> Path:
    text = CONFIG.read_text(encoding="utf-8")
    for meter, progressive, limits in LIMITS:
        plain = f'[meters.{meter}]\nprogressive = "{progressive}"\n'
        assert plain in text
        text = text.replace(plain, plain + limits + "\n")
    path = folder / "capped.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_carried_overflow_is_the_same_on_both_engines(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    config = capped_config(tmp_path)
    events = simulate(tmp_path, rounds=30, seed=20261201, config=config)
    names = deploy(bootstrap, table_partitions=1, config=config)
    ingest_file(bootstrap, names, events)
    worker = Worker(bootstrap, names, tmp_path, config=config)
    worker.start()
    try:
        wait_caught_up(worker, timeout=180)
    finally:
        worker.stop()
    fold = read_events(bootstrap, names)
    check_log(bootstrap, names, fold, events)
    floor = load_floor_config(config.read_text(encoding="utf-8"), str(config))
    document: dict[str, Any] = fold_document(floor, fold.meters, fold)
    reference: dict[str, Any] = replay_file(config, events)
    assert document["meters"] == reference["meters"]
    assert document["awards"] == sorted(reference["awards"], key=award_sort_key)
    overflowing = [m for m in reference["meters"] if m["overflow"] != "0.00"]
    assert {m["meter_id"] for m in overflowing} >= {"tcp-progressive"}
    for meter in fold.meters.values():
        assert meter.explained_sub() == meter.held_sub()
        ceiling = floor.meters[meter.meter_id].ceiling_sub
        assert ceiling is None or meter.amount_sub <= ceiling
