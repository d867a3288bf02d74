"""The mypyc build is used only while it is the code beside it (`streams.compiled`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from streams import compiled

SUFFIX = str(sysconfig.get_config_var("EXT_SUFFIX"))
HOT = "controller/fast/hot.py"


def stamp_of(hashed: dict[str, str], **changes: Any) -> dict[str, Any]:
    """A stamp as `scripts/build_fast.py` writes it, for this Python and `COMPILED`."""
    stamp: dict[str, Any] = {
        "modules": list(compiled.COMPILED),
        "ext_suffix": SUFFIX,
        "built_at": "2026-12-02T06:00:00+00:00",
        "sha256": hashed,
    }
    stamp.update(changes)
    return stamp


def test_a_stamp_is_current_until_a_hashed_file_changes(tmp_path: Path) -> None:
    source = tmp_path / "a.py"
    source.write_text("x = 1\n", encoding="utf-8")
    stamp = stamp_of({"a.py": compiled.sha256(source)})
    assert compiled.stale(stamp, tmp_path) == []
    source.write_text("x = 2\n", encoding="utf-8")
    assert compiled.stale(stamp, tmp_path) == ["a.py"]
    source.unlink()
    assert compiled.stale(stamp, tmp_path) == ["a.py"]


def test_a_stamp_for_another_python_or_module_list_is_stale(tmp_path: Path) -> None:
    other = stamp_of({}, ext_suffix=".cpython-399-x86_64-linux-gnu.so")
    assert compiled.stale(other, tmp_path) == ["built for .cpython-399-x86_64-linux-gnu.so"]
    fewer = stamp_of({}, modules=list(compiled.COMPILED[1:]))
    assert compiled.stale(fewer, tmp_path) == ["the list of compiled modules changed"]


def _fake_build(build: Path) -> None:
    """Empty files where the binaries go: `decide` only looks for them, never loads them."""
    for name in (*compiled.COMPILED, compiled.GROUP + "__mypyc"):
        path = build.joinpath(*name.split(".")).with_name(name.rsplit(".", 1)[-1] + SUFFIX)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()


def test_decide_uses_only_a_current_complete_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(compiled, "BUILD", tmp_path)
    current = stamp_of({HOT: compiled.sha256(compiled.ROOT / HOT)})
    assert not compiled.decide(current, (), None).compiled  # no binaries yet
    assert "incomplete build" in caplog.text
    _fake_build(tmp_path)
    assert compiled.decide(current, (), None).compiled
    assert compiled.decide(current, (), "1").compiled
    turned_off = compiled.decide(current, (), "0")
    assert (turned_off.compiled, turned_off.reason) == (False, "JACKPOT_COMPILED=0")
    assert compiled.decide(None, (), None) == compiled.Mode(False, "not built: make fast")
    caplog.clear()
    edited = stamp_of({HOT: "0" * 64})
    mode = compiled.decide(edited, (), None)
    assert not mode.compiled
    assert mode.reason.startswith(f"stale: {HOT} changed")
    assert len(caplog.records) == 1  # one warning line
    assert "running interpreted" in caplog.records[0].getMessage()


def test_decide_never_mixes_a_build_with_modules_already_interpreted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled, "BUILD", tmp_path)
    _fake_build(tmp_path)
    current = stamp_of({HOT: compiled.sha256(compiled.ROOT / HOT)})
    mode = compiled.decide(current, {"controller.fast.hot"}, None)
    assert not mode.compiled
    assert "imported before" in mode.reason


def test_this_session_runs_the_build_exactly_when_it_is_current() -> None:
    """What the differential tests in this run exercised (conftest installs the finder first)."""
    import controller.fast.hot  # noqa: PLC0415 - the module whose origin is the point

    stamp = compiled.read_stamp()
    wanted = os.environ.get(compiled.ENV) != "0"
    expected = wanted and stamp is not None and not compiled.stale(stamp)
    assert compiled.mode().compiled == expected
    origin = str(controller.fast.hot.__file__)
    assert origin.endswith(SUFFIX if expected else ".py")
    if expected:
        assert origin.startswith(str(compiled.BUILD))


def _probe(root: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import streams.compiled as c, controller.fast.hot as h, controller.fast.session as s\n"
        "print(c.mode().compiled, h.__file__, s.__file__)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )


@pytest.mark.skipif(
    compiled.read_stamp() is None, reason="no mypyc build here (make fast); nothing to shadow"
)
def test_an_edited_source_is_never_shadowed_by_its_build(tmp_path: Path) -> None:
    """A copy of the checkout with its build: as built, the compiled modules load; once a
    compiled source is edited, every one of them runs from its ``.py`` with one warning line."""
    stamp = compiled.read_stamp()
    assert stamp is not None
    if compiled.stale(stamp):
        pytest.fail("the build is stale (conftest stops such a session first)")
    for package in ("controller", "streams"):
        shutil.copytree(compiled.ROOT / package, tmp_path / package)
    shutil.copytree(compiled.BUILD, tmp_path / "build" / "mypyc")
    as_built = _probe(tmp_path)
    flag, hot, session = as_built.stdout.split()
    assert flag == "True"
    assert hot.startswith(str(tmp_path / "build" / "mypyc"))
    assert hot.endswith(SUFFIX)
    assert session.endswith(SUFFIX)
    with (tmp_path / HOT).open("a", encoding="utf-8") as source:
        source.write("# an edit\n")
    edited = _probe(tmp_path)
    assert edited.stdout.split() == [
        "False",
        str(tmp_path / HOT),
        str(tmp_path / "controller/fast/session.py"),
    ]
    assert edited.stderr.count("\n") == 1
    assert f"stale: {HOT} changed since the build" in edited.stderr
