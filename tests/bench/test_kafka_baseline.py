"""`bench.kafka.compiled`: a baseline tree's fast path is built by its own script on its own
modules. The interpreter's editable install names this worktree's `streams`, so without the
tree first on the path the baseline's ``scripts/build_fast.py`` rebuilt (kept) this tree's build
and the baseline's worker ran interpreted, without the extension, whenever a compiled or native
source differed (issue 13, branch ``k13-s28``: 34 µs of CPU an event against 21)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench import kafka


def test_the_baseline_builds_its_own_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "baseline"
    (tree / "scripts").mkdir(parents=True)
    (tree / "scripts" / "build_fast.py").write_text("", "utf-8")
    (tree / "build").mkdir()  # built already: nothing copied in
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: calls.append(kw))
    kafka.compiled(tree)
    assert len(calls) == 1
    assert calls[0]["cwd"] == tree
    assert calls[0]["env"]["PYTHONPATH"] == str(tree)
