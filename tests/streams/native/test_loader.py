"""The native build is used only while it is the code beside it (`streams.native`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from streams import compiled, native

LIB = "streams/native/src/lib.rs"


def _crate(root: Path) -> Path:
    """A copy of the crate's inputs under ``root``, as the checkout lays them out."""
    crate = root / "streams" / "native"
    (crate / "src").mkdir(parents=True)
    for name in ("Cargo.toml", "Cargo.lock", "src/lib.rs"):
        shutil.copy(native.CRATE / name, crate / name)
    return crate


def _stamp_of(crate: Path, root: Path) -> dict[str, Any]:
    names = native.inputs(crate, root)
    return {"built_at": "2026-12-02T06:00:00+00:00", "sha256": {
        name: compiled.sha256(root / name) for name in names
    }}  # fmt: skip


def test_a_stamp_is_current_until_an_input_changes_appears_or_goes(tmp_path: Path) -> None:
    crate = _crate(tmp_path)
    stamp = _stamp_of(crate, tmp_path)
    assert sorted(stamp["sha256"]) == [
        "streams/native/Cargo.lock", "streams/native/Cargo.toml", LIB
    ]  # fmt: skip
    assert native.stale(stamp, crate, tmp_path) == []
    with (crate / "src" / "lib.rs").open("a", encoding="utf-8") as source:
        source.write("// an edit\n")
    assert native.stale(stamp, crate, tmp_path) == [LIB]
    stamp = _stamp_of(crate, tmp_path)
    (crate / "src" / "more.rs").write_text("// new\n", encoding="utf-8")
    assert native.stale(stamp, crate, tmp_path) == ["streams/native/src/more.rs"]
    (crate / "Cargo.lock").unlink()
    assert "streams/native/Cargo.lock" in native.stale(stamp, crate, tmp_path)


def test_decide_uses_only_a_current_complete_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(native, "BINARY", tmp_path / "jackpot_native.abi3.so")
    current = _stamp_of(native.CRATE, compiled.ROOT)
    assert not native.decide(current, None).native  # no binary
    assert "incomplete build" in caplog.text
    native.BINARY.touch()
    assert native.decide(current, None).native
    assert native.decide(current, "1").native
    assert native.decide(current, "0") == native.Mode(False, "JACKPOT_NATIVE=0")
    assert native.decide(None, None) == native.Mode(False, "not built: make fast (needs cargo)")
    caplog.clear()
    edited = {**current, "sha256": {**current["sha256"], LIB: "0" * 64}}
    mode = native.decide(edited, None)
    assert not mode.native
    assert mode.reason.startswith(f"stale: {LIB} changed")
    assert len(caplog.records) == 1  # one warning line
    assert "running the Python path" in caplog.records[0].getMessage()


def test_this_session_runs_the_build_exactly_when_it_is_current() -> None:
    """What the engine's tests in this run exercised."""
    from streams.embedded import lines  # noqa: PLC0415 - the module whose writer is the point

    stamp = native.read_stamp()
    wanted = os.environ.get(native.ENV) != "0"
    expected = wanted and stamp is not None and not native.stale(stamp)
    assert native.mode().native == expected
    assert (lines._NATIVE is not None) == expected


def _probe(root: Path, **env: str) -> list[str]:
    code = "from streams import native\nprint(native.mode().native, native.payload_writer())\n"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, native.ENV: "1", **env},
    )
    return [done.stdout.split()[0], done.stderr]


@pytest.mark.skipif(native.read_stamp() is None, reason="no native build here (make fast)")
def test_an_edited_source_is_never_shadowed_by_its_build(tmp_path: Path) -> None:
    """A copy of the checkout with its build: as built, the extension loads; once its source
    is edited it does not, with one warning line; ``JACKPOT_NATIVE=0`` turns it off quietly."""
    stamp = native.read_stamp()
    assert stamp is not None
    assert not native.stale(stamp), "the native build is stale: make fast"
    for package in ("controller", "streams"):
        shutil.copytree(compiled.ROOT / package, tmp_path / package)
    shutil.copytree(native.BUILD, tmp_path / "build" / "native")
    assert _probe(tmp_path)[0] == "True"
    assert _probe(tmp_path, JACKPOT_NATIVE="0") == ["False", ""]
    with (tmp_path / LIB).open("a", encoding="utf-8") as source:
        source.write("// an edit\n")
    flag, warned = _probe(tmp_path)
    assert flag == "False"
    assert "the native hot path is not used (stale" in warned
    assert len(warned.strip().splitlines()) == 1
