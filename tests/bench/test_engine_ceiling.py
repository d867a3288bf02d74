"""`bench.engine_ceiling` transforms the engine's recorded batches as its docstring says (heads
kept, tails cut or left out) and runs end to end (no timing is checked here)."""

from __future__ import annotations

import hashlib

import pytest

from bench import engine_ceiling
from streams.ports import LogRecord

HEAD = LogRecord("tcp-1", b'{"event_id":"a","schema_version":1,"type":"x"}', "a", "t0")
TAIL = LogRecord(
    "m", b'{"meter_id":"m","schema_version":1,"type":"contribution_recorded"}', "", "t0"
)


def test_the_variants_keep_heads_and_cut_or_drop_tails() -> None:
    variants = engine_ceiling._variants([[HEAD, TAIL, TAIL], [HEAD]])
    assert variants["engine today"] == [[HEAD, TAIL, TAIL], [HEAD]]
    bare_head = LogRecord("tcp-1", b'{"event_id":"a","type":"x"}', "a", "t0")
    cut = variants["no schema_version, tails 40 B"]
    assert cut[0][0] == bare_head
    bare_tail = b'{"meter_id":"m","type":"contribution_recorded"}'
    assert [record.payload for record in cut[0][1:]] == [bare_tail[:40]] * 2
    assert all(record.dedupe_id == "" and record.key == "m" for record in cut[0][1:])
    digest = hashlib.sha256(TAIL.payload * 2).digest()
    assert variants["tails as one 32-B digest a row"] == [
        [HEAD, LogRecord("m", digest, "", "t0")],
        [HEAD],
    ]
    assert variants["tails not stored"] == [[HEAD], [HEAD]]
    assert variants["tails not stored, no schema_version"] == [[bare_head], [bare_head]]


def test_it_runs_and_prints_every_variant(capsys: pytest.CaptureFixture[str]) -> None:
    engine_ceiling.main(1)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("processing (null log)")
    assert [line.split("  ")[0].strip() for line in out[1:]] == [
        "engine today",
        "no schema_version",
        "no schema_version, tails 120 B",
        "no schema_version, tails 40 B",
        "tails as one 32-B digest a row",
        "tails not stored",
        "tails not stored, no schema_version",
    ]
