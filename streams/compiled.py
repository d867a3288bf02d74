"""The mypyc build of the fast path, loaded only while it is still the code beside it.

`scripts/build_fast.py` (``make fast``, run by ``make install`` and so by ``make run`` and
``make test``) compiles the modules of `COMPILED` from their unchanged typed source into
`BUILD` (never beside the sources: Python would load a ``.so`` there before its ``.py``, and an
edited ``.py`` would be shadowed by stale code) and writes `STAMP`: the sha256 of each compiled
source and of every project module they import (mypyc reads their types and inlines their
``Final`` constants).

`install()` (run when the ``streams`` package is imported, by the tests' conftest and the bench)
puts a finder first on ``sys.meta_path``. The first time a compiled module is imported it decides
once for the whole process: the build is used only if the stamp is for this Python and every
hashed file is as it was built; else every module of `COMPILED` runs interpreted (never some of
each: compiled modules call each other directly, and two copies of a class would not compare),
with one warning line when a build exists but cannot be used. ``JACKPOT_COMPILED=0`` asks for
the interpreted path. `mode()` says which ran.

Only the stdlib here: the finder must work before anything else of the project is imported.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import sysconfig
from collections.abc import Collection
from dataclasses import dataclass
from importlib.machinery import ExtensionFileLoader, ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path
from types import ModuleType
from typing import Any

#: The project's root (the checkout, for an editable install).
ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mypyc"
STAMP = BUILD / "stamp.json"
ENV = "JACKPOT_COMPILED"
#: The one group mypyc compiles; its shared library is ``GROUP + "__mypyc"``.
GROUP = "jackpot_fast"
#: The modules compiled, by name: those whose compiled code pays (bench/PROPOSALS.md, "mypyc").
#: `controller.fast.build` writes code with ``exec`` and the package's ``__init__`` only
#: re-exports: both stay interpreted, as do `streams.codec.writer` and
#: `streams.scaleout.fast_settle` (compiled, within 1% of their rows' instructions), and
#: `controller.fast.lane` (compiled, the Kafka lanes took 392.8k instructions a table event
#: against 252.4k interpreted: cachegrind, `bench.kafka_procs --once rm`, 2026-12-02; measured
#: again on the worker's probe 2026-12-03, 216.5k against 215.6k: its reads of interpreted frozen
#: dataclasses go through the generic attribute lookup when compiled, so it pays only with the
#: model classes compiled too).
COMPILED: tuple[str, ...] = (
    "controller.fast.apply",
    "controller.fast.contribution",
    "controller.fast.hands",
    "controller.fast.hot",
    "controller.fast.local",
    "controller.fast.lock",
    "controller.fast.meter_record",
    "controller.fast.payouts",
    "controller.fast.records",
    "controller.fast.session",
    "controller.fast.settle",
    "controller.fast.settle_check",
    "controller.fast.settle_ctx",
    "controller.fast.settle_gate",
    "controller.fast.shapes",
    "controller.fast.tables",
    "streams.door.fast_core",
    "streams.door.struct_checks",
    "streams.door.struct_cents",
    # the embedded engine's lines: 100.2k -> 90.4k instructions an event with `batch` and
    # `received`, its processing without the log (bench/PROPOSALS.md, "The engine's glue")
    "streams.embedded.lines",
    "streams.embedded.batch",
    "streams.embedded.received",
    # the Kafka worker's decide loop and local apply: 256.2k -> 248.0k instructions a table
    # event (cachegrind, `bench.kafka_local_probe local`, marginal 500 -> 3,000 events); with
    # `scaleout.rounds` and `table_read` too 246.8k (-0.4%: left out), with `scaleout.meters`
    # 258.4k (its records then native classes: slower), 2026-12-02
    "streams.scaleout.batch",
    "streams.scaleout.local_apply",
    # the round lane's open path, its processor and local apply's open meters: 140.0k -> 134.7k
    # (-3.8%); with `scaleout.table_record` and `diverts` too 137.0k, with `table_read` and
    # `controller.fast.lane` 137.4k (against 137.2k without those two and the meters' pair):
    # left out (issue 13, branch `k13-s22`, 2026-12-04)
    "streams.scaleout.open_table",
    "streams.scaleout.open_rounds",
    "streams.scaleout.rounds",
    "streams.scaleout.open_meter",
    "streams.scaleout.contribute",
)
_LOG = logging.getLogger("jackpot.compiled")


@dataclass(frozen=True)
class Mode:
    """Which path this process runs and why."""

    compiled: bool
    reason: str

    def __str__(self) -> str:
        return f"compiled: {'yes' if self.compiled else 'no'} ({self.reason})"


def source_path(module: str, root: Path = ROOT) -> Path:
    """The ``.py`` file of a project module (a package's ``__init__.py``)."""
    base = root.joinpath(*module.split("."))
    package = base / "__init__.py"
    return package if package.exists() else base.with_suffix(".py")


def sha256(path: Path) -> str:
    """The file's sha256, hex; "missing" for a file that is not there."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "missing"


def read_stamp(stamp: Path | None = None) -> dict[str, Any] | None:
    """The stamp of the last build (`STAMP`), or None if there is none or it cannot be read."""
    try:
        loaded = json.loads((stamp or STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def stale(stamp: dict[str, Any], root: Path = ROOT) -> list[str]:
    """The hashed files (relative paths) that differ from the build, or why the stamp does not
    fit this Python or this list of modules; empty if the build is current."""
    if stamp.get("ext_suffix") != sysconfig.get_config_var("EXT_SUFFIX"):
        return [f"built for {stamp.get('ext_suffix')}"]
    if tuple(stamp.get("modules", ())) != COMPILED:
        return ["the list of compiled modules changed"]
    hashes: dict[str, str] = stamp.get("sha256", {})
    return [name for name, digest in sorted(hashes.items()) if sha256(root / name) != digest]


def decide(stamp: dict[str, Any] | None, loaded: Collection[str], setting: str | None) -> Mode:
    """Compiled or interpreted, for the whole process (see the module's docstring): ``stamp``
    is the build's (`read_stamp`), ``loaded`` the modules imported so far, ``setting`` the
    value of `ENV`."""
    if setting == "0":
        return Mode(compiled=False, reason=f"{ENV}=0")
    if stamp is None:
        return Mode(compiled=False, reason="not built: make fast")
    early = [name for name in COMPILED if name in loaded]
    if early:
        return _refuse(f"{early[0]} was imported before the finder was installed")
    changed = stale(stamp)
    if changed:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        return _refuse(f"stale: {changed[0]}{more} changed since the build; run make fast")
    missing = [name for name in (*COMPILED, GROUP + "__mypyc") if not _binary(name).exists()]
    if missing:
        return _refuse(f"incomplete build: no binary for {missing[0]}; run make fast")
    return Mode(compiled=True, reason=f"mypyc build {stamp.get('built_at', '?')}")


def _refuse(reason: str) -> Mode:
    _LOG.warning("jackpot: the compiled fast path is not used (%s): running interpreted", reason)
    return Mode(compiled=False, reason=reason)


def _binary(module: str) -> Path:
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    return BUILD.joinpath(*module.split(".")).with_name(module.rsplit(".", 1)[-1] + suffix)


class _Finder:
    """A meta path finder for the modules of `COMPILED` and their shared library, answering
    only after `_decide` said "compiled"; every other name goes to the usual finders."""

    def __init__(self) -> None:
        self.mode: Mode | None = None
        self._names = frozenset((*COMPILED, GROUP + "__mypyc"))

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The build's spec for a compiled module when the build is current, else None."""
        if fullname not in self._names:
            return None
        if self.mode is None:
            self.mode = decide(read_stamp(), sys.modules, os.environ.get(ENV))
        if not self.mode.compiled:
            return None
        binary = str(_binary(fullname))
        return spec_from_file_location(
            fullname, binary, loader=ExtensionFileLoader(fullname, binary)
        )


_FINDER = _Finder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def mode() -> Mode:
    """Which path runs in this process: imports the fast path if nothing has yet."""
    install()
    __import__("controller.fast.session")
    return _FINDER.mode or Mode(compiled=False, reason="the finder was not asked")
