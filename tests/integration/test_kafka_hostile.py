"""The hostile corpus (`tests.hostile.corpus`) written straight onto the table-events topic.

A rogue device on the network does not go through `streams.scaleout.ingest`: it writes whatever
bytes it likes, with whatever key, with a plain confluent-kafka producer. Here every corpus item
is produced that way, interleaved with a valid simulated floor on the other tables, together with
records only Kafka can carry (`rogue_records`: a tombstone; a missing, foreign, reserved or huge
key; a table id near the broker's record limit). One worker processes the lot. Then:

- every hostile record that reached the topic is dead-lettered exactly once, with its raw input
  and a reason containing what the corpus expects; where the embedded engine can be given the
  same bytes (through the JSONL/Kafka line door, `parse_json_line`), the reason is the embedded
  engine's word for word; the one record the broker itself refuses (10 MB) never reaches a
  worker and is counted as refused by the broker;
- nothing hostile changed a meter: meters and awards equal the embedded engine's for the valid
  records alone, and the workers' stored meters equal a fold of the events topic;
- nothing was lost: every valid record was accepted exactly once, and nothing else was;
- the worker never crashed: one start, alive at the end, no failed batch.

A core item is only wrong after its context (a wager after the lock needs a locked round) and all
of them share table ``tcp-1``: `tests.hostile.corpus.staged` gives each its own stage (seqs moved
up, round ids renamed, the round voided after it). The simulated floor leaves ``tcp-1`` out.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, Message, Producer

from controller.config.floor import load_floor_config
from controller.model.errors import RuleViolation, StoreUnavailable
from controller.model.views import awards_view, meters_view
from streams.adapters.kafka.read import read_values
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.memory import MemoryLog
from streams.codec import MAX_RAW_KEPT, decode
from streams.door.json_lines import parse_json_line
from streams.embedded.engine import EmbeddedController, Outcome
from streams.scaleout.dump import (
    award_sort_key,
    consumer_lag,
    fold_document,
    read_events,
    worker_meters,
)
from streams.scaleout.ingest import event_id_of, table_key
from tests.hostile.corpus import CORPUS, STAGE_SEQS, TABLE, ev, staged
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import CONFIG, REPO, Worker, deploy

pytestmark = pytest.mark.integration

#: The broker's default ``max.message.bytes`` (the topics keep it): a record over it is refused.
BROKER_LIMIT = 1_048_588
SIM_ROUNDS, SIM_SEED = 6, 20261129
BROKER_REFUSED = "refused by the broker (record over max.message.bytes)"
RESERVED = "record key '\\x00next:0' is not"  # the worker's own progress-mark key
HUGE = f"record key '{chr(0xFFFD) * 64}' is not"  # quoted short, as the stage decodes it
LAYERS = {"body": "door: bytes", "event": "door: contract", "core": "rules"}


@dataclass(frozen=True, slots=True)
class Record:
    """One record the rogue producer writes; ``item`` names a hostile one."""

    key: bytes | None
    value: bytes | None
    item: str = ""
    expect: str = ""  # what its refusal must say
    embedded: bool = True  # the embedded engine is given the same bytes (not Kafka-only ones)
    layer: str = "kafka record"  # what refuses it (for the summary table)

    @property
    def size(self) -> int:
        return len(self.key or b"") + len(self.value or b"")


def rogue_records(stage: int) -> list[Record]:
    """What only a Kafka producer can send. The keyed ones carry a round_opened that would be
    valid at `TABLE` if its key were ``tcp-1``: only the key is wrong."""
    table = TABLE.encode()
    return [
        Record(table, None, "tombstone", "malformed JSON", embedded=False, layer="door: bytes"),
        Record(None, _opening("no-key", stage), "no-key", "record key None", embedded=False),
        Record(b"tcp-2", _opening("other", stage), "key-of-another-table", "key 'tcp-2'", False),
        Record(b"\x00next:0", _opening("reserved", stage), "reserved-key", RESERVED, False),
        Record(b"\xff" * 400_000, _opening("huge", stage), "400kb-key-not-utf8", HUGE, False),
        Record(
            table,
            b'{"table_id":"' + b"t" * 1_040_000 + b'"}',
            "1mb-table-id",
            "over the limit of 65536 bytes",
            layer="door: bytes",
        ),
    ]


def _opening(label: str, stage: int) -> bytes:
    event = ev(stage * STAGE_SEQS + 1, "round_opened", game="three_card_poker")
    return json.dumps(event | {"event_id": f"rogue:{label}", "round_id": f"rogue-{stage}"}).encode()


def hostile_groups() -> list[list[Record]]:
    """Each corpus item as the records that make it hostile (context, item, closing void)."""
    groups, stage = [], 0
    for item in CORPUS:
        if item.where != "core":  # the door refuses it whatever the table's state
            payload, layer = item.payload(), LAYERS[item.where]
            groups.append(
                [Record(_key(payload), payload, item.name, item.line_reason, True, layer)]
            )
            continue
        stage += 1
        placed = staged(item, stage)
        hostile = Record(
            _key(placed.payload), placed.payload, item.name, placed.expect, True, "rules"
        )
        groups.append([*map(_valid, placed.context), hostile, *map(_valid, placed.closing)])
    return [*groups, rogue_records(stage + 1)]


def _valid(line: bytes) -> Record:
    return Record(_key(line), line)


def _key(line: bytes) -> bytes | None:
    """The key a device would use: the table id as it reads it (a lone surrogate included)."""
    key = table_key(line)
    return key.encode("utf-8", "surrogatepass") if key is not None else None


def build_stream(folder: Path) -> list[Record]:
    """The simulated floor without `TABLE`, with the hostile groups spread evenly through it."""
    out = folder / "sim.jsonl"
    command = [sys.executable, "-m", "streams.cli", "simulate", "--config", str(CONFIG)]
    command += ["--rounds", str(SIM_ROUNDS), "--seed", str(SIM_SEED), "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True, cwd=REPO)
    lines = [line for line in out.read_bytes().splitlines() if line.strip()]
    valid = [r for r in map(_valid, lines) if r.key != TABLE.encode()]
    groups = hostile_groups()
    step = len(valid) // (len(groups) + 1)
    records: list[Record] = []
    for number, group in enumerate(groups):
        records += [*valid[number * step : (number + 1) * step], *group]
    return [*records, *valid[len(groups) * step :]]


def produce(bootstrap: str, names: TopicNames, records: list[Record]) -> dict[int, int]:
    """Write every record as it is; {index in ``records``: offset} of those the broker took.
    Records over the broker's limit go through a second producer that allows them (the broker
    refuses them; a batch holding one would be refused whole)."""
    offsets: dict[int, int] = {}
    common = {"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 2, "log_level": 0}
    rogue = Producer(common | {"enable.idempotence": True, "message.max.bytes": BROKER_LIMIT})
    oversize = Producer(common | {"message.max.bytes": 20 * BROKER_LIMIT})
    for index, record in enumerate(records):
        producer = oversize if record.size > BROKER_LIMIT - 512 else rogue

        def delivered(error: KafkaError | None, message: Message, at: int = index) -> None:
            if error is None:
                offsets[at] = message.offset() or 0

        producer.produce(names.table_events, record.value, record.key, on_delivery=delivered)
        producer.poll(0)
        if producer is oversize:
            assert oversize.flush(60) == 0
    assert rogue.flush(60) == 0
    return offsets


def embedded(records: list[Record]) -> tuple[list[Outcome], dict[str, Any]]:
    """The embedded engine's outcome for each record's value (through the line door, as
    `jackpot ingest` reads a line), and its meters and awards after them all."""
    log = MemoryLog()
    controller = EmbeddedController(log, MemoryLog())
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    outcomes = []
    for record in records:
        value = record.value or b""
        try:
            raw = parse_json_line(value)
        except RuleViolation as exc:
            text = value.decode("utf-8", "replace")
            outcomes.append(controller.record_rejection(text, str(exc)))
            continue
        outcomes += controller.submit([raw])
    logged = [decode(r.payload) for r in log.read()]
    views = {"meters": meters_view(controller.state), "awards": list(awards_view(logged))}
    return outcomes, views


def wait_processed(worker: Worker, timeout: float) -> None:
    """Until the worker committed everything (twice in a row); fail at once if it died."""
    names, deadline, zeros = worker.names, time.monotonic() + timeout, 0
    while zeros < 2:
        assert worker.alive(), f"the worker died on hostile input:\n{worker.logs()}"
        if time.monotonic() > deadline:
            pytest.fail(f"the worker did not get through in {timeout}s:\n{worker.logs()}")
        try:
            lag = consumer_lag(worker.bootstrap, names.app_id, [names.table_events])
        except StoreUnavailable:
            lag = -1
        zeros = zeros + 1 if lag == 0 else 0
        time.sleep(1.0)


def test_hostile_records_on_the_topic_are_refused_recorded_and_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bootstrap = require_kafka()
    records = build_stream(tmp_path)
    names = deploy(bootstrap, table_partitions=1)
    offsets = produce(bootstrap, names, records)
    worker = Worker(bootstrap, names, tmp_path)
    worker.start()
    try:
        wait_processed(worker, timeout=180)
        assert worker.alive()
        assert worker.starts == 1
    finally:
        worker.stop()
    assert "batch failed" not in worker.logs(None)
    landed = [records[i] for i in sorted(offsets)]  # the topic, in order
    refused = [r for i, r in enumerate(records) if i not in offsets]
    assert [r.item for r in refused] == ["string-10mb"]  # only what is over the broker's limit
    letters = _check_dead_letters(bootstrap, names, records, offsets)
    _check_nothing_changed(bootstrap, names, landed)
    table = Counter((r.layer, r.expect) for r in landed if r.item)
    table[("broker", BROKER_REFUSED)] = len(refused)
    with capsys.disabled():
        _print_summary(len(CORPUS) + len(rogue_records(0)), len(landed), letters, table)


def _check_dead_letters(
    bootstrap: str, names: TopicNames, records: list[Record], offsets: dict[int, int]
) -> int:
    """Each hostile record dead-lettered once with its raw input and the expected reason (the
    embedded engine's, where it saw the same bytes); no valid record dead-lettered."""
    letters = [json.loads(v) for v in read_values(bootstrap, names.dead_letter)]
    by_source = {letter["source"]: letter for letter in letters}
    assert len(by_source) == len(letters)
    given = [i for i in sorted(offsets) if records[i].embedded]
    verdicts = dict(zip(given, embedded([records[i] for i in given])[0], strict=True))
    for index, offset in offsets.items():
        record, letter = records[index], by_source.pop(f"{names.table_events}:0:{offset}", None)
        if not record.item:
            assert letter is None, letter
            assert verdicts[index].status == "accepted", verdicts[index]
            continue
        assert letter is not None, f"{record.item} was not dead-lettered"
        assert record.expect in letter["reason"], (record.item, letter["reason"])
        assert letter["raw"] == (record.value or b"")[:MAX_RAW_KEPT].decode("utf-8", "replace")
        if index in verdicts:
            assert letter["reason"] == verdicts[index].reason, record.item
    assert by_source == {}
    return len(letters)


def _check_nothing_changed(bootstrap: str, names: TopicNames, landed: list[Record]) -> None:
    """Meters and awards are the valid records' alone; every valid event accepted once."""
    valid = [r for r in landed if not r.item]
    fold = read_events(bootstrap, names)
    assert fold.problems == []
    assert worker_meters(bootstrap, names) == fold.meters
    assert Counter(fold.accepted_ids) == Counter(event_id_of(r.value or b"") for r in valid)
    assert len(fold.rejected) == len(landed) - len(valid)
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    document: dict[str, Any] = fold_document(config, fold.meters, fold)
    reference = embedded(valid)[1]
    assert document["meters"] == reference["meters"]
    assert document["awards"] == sorted(reference["awards"], key=award_sort_key)


def _print_summary(tried: int, landed: int, letters: int, table: Counter[tuple[str, str]]) -> None:
    """Totals by what refused the items, then the reasons shared by more than one item."""
    print(
        f"\nkafka hostile: {tried} hostile items tried ({len(CORPUS)} corpus + "
        f"{tried - len(CORPUS)} Kafka-only) among {landed} records on the topic; "
        f"{letters} dead letters; 1 worker start, no crash; rejections:"
    )
    for layer in sorted({layer for layer, _ in table}):
        rows = {reason: n for (mine, reason), n in table.items() if mine == layer}
        shared = ", ".join(f"{n} '{r}'" for r, n in sorted(rows.items(), key=_count) if n > 1)
        singles = sum(1 for n in rows.values() if n == 1)
        detail = f"{shared}{', ' if shared else ''}{singles} reason(s) of one item each"
        print(f"  {layer:<15} {sum(rows.values()):4d}  ({detail})")


def _count(row: tuple[str, int]) -> tuple[int, str]:
    return -row[1], row[0]
