"""Compile the fast path with mypyc into build/mypyc/ and the native crate into build/native/,
and stamp each (``make fast``).

Does nothing for a build whose stamp already matches every hashed source (so every ``make``
target can call it). Without mypyc or a C compiler, or when the compile fails, it says so in one
line, leaves no build behind and exits 0: the fast path then runs interpreted
(`streams.compiled`). Likewise without cargo, or when cargo fails (no network for the crates, an
old toolchain): the native hot path is then not used (`streams.native`).
``--force`` rebuilds anyway; ``--check`` only reports (exit 1 when a build is stale).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from streams import native
from streams.compiled import BUILD, COMPILED, GROUP, ROOT, STAMP, read_stamp, sha256, source_path
from streams.compiled import stale as stale_files

PROJECT = ("controller", "streams")


def imported(module: str) -> set[str]:
    """The project modules ``module``'s source names in its imports (under TYPE_CHECKING too:
    mypyc compiles against their types), with their parent packages."""
    tree = ast.parse(source_path(module).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    found = {name for name in names if name.split(".")[0] in PROJECT and source_path(name).exists()}
    return found | {parent for name in found for parent in _parents(name)}


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def inputs() -> list[str]:
    """Every project file the build depends on: the compiled modules and their imports, closed."""
    seen: set[str] = set()
    todo = list(COMPILED)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(imported(module) - seen)
    return sorted(str(source_path(m).relative_to(ROOT)) for m in seen | set(_all_parents()))


def _all_parents() -> set[str]:
    return {parent for module in COMPILED for parent in _parents(module)}


def compile_into(target: Path) -> None:
    """Run mypyc and the C compiler over `COMPILED`, the binaries into ``target``."""
    setup = (
        "import sys\n"
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        "paths, lib, temp = sys.argv[1:-2], sys.argv[-2], sys.argv[-1]\n"
        f"modules = mypycify(paths, opt_level='3', group_name={GROUP!r}, target_dir=temp + '/c')\n"
        "setup(name='jackpot-fast', ext_modules=modules, script_args=["
        "'build_ext', '--build-lib', lib, '--build-temp', temp])\n"
    )
    sources = [str(source_path(m).relative_to(ROOT)) for m in COMPILED]
    with tempfile.TemporaryDirectory(prefix="jackpot-mypyc-") as temp:
        done = subprocess.run(  # noqa: S603 - this Python, fixed arguments
            [sys.executable, "-c", setup, *sources, str(target), temp],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(tail[0])


def build() -> str:
    """Compile into a fresh directory, stamp it, and only then put it in place."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        return "no C compiler"
    try:
        import mypyc  # noqa: F401, PLC0415 - only to say clearly that it is missing
    except ImportError:
        return "mypyc is not installed (pip install -e '.[dev]')"
    started = datetime.now(UTC)
    hashed = {name: sha256(ROOT / name) for name in inputs()}
    fresh = BUILD.with_name(BUILD.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    try:
        compile_into(fresh)
    except RuntimeError as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        return f"mypyc failed: {exc}"
    stamp = {
        "modules": list(COMPILED),
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
        "built_at": started.isoformat(timespec="seconds"),
        "sha256": hashed,  # hashed before compiling: an edit during the build makes it stale
    }
    (fresh / STAMP.name).write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(BUILD, ignore_errors=True)
    fresh.rename(BUILD)
    return ""


def main(argv: list[str] | None = None) -> int:
    """Build if needed; one line of what happened."""
    parser = argparse.ArgumentParser(prog="scripts/build_fast.py", description=__doc__)
    parser.add_argument("--force", action="store_true", help="rebuild even if current")
    parser.add_argument("--check", action="store_true", help="only report; exit 1 if stale")
    args = parser.parse_args(argv)
    # the two compilers side by side: each keeps one core busy (gcc over mypyc's one C file,
    # rustc over the crate), so on two cores the build takes the longer of the two, not the sum
    with ThreadPoolExecutor(max_workers=1) as pool:
        native_done = pool.submit(_native, force=args.force, check=args.check)
        mypyc = _mypyc(force=args.force, check=args.check)
        return max(mypyc, native_done.result())


def _mypyc(*, force: bool, check: bool) -> int:
    stamp = read_stamp()
    changed = ["no build"] if stamp is None else stale_files(stamp)
    if check:
        print(f"build_fast: {'stale: ' + ', '.join(changed) if changed else 'current'}")
        return 1 if changed and stamp is not None else 0
    if not changed and not force:
        return 0
    shutil.rmtree(BUILD, ignore_errors=True)  # never leave a stale build behind
    why = build()
    if why:
        print(f"build_fast: {why}: the fast path runs interpreted", file=sys.stderr)
    else:
        print(f"build_fast: compiled {len(COMPILED)} modules into {BUILD.relative_to(ROOT)}")
    return 0


def _native(*, force: bool, check: bool) -> int:
    stamp = native.read_stamp()
    changed = ["no build"] if stamp is None else native.stale(stamp)
    if check:
        print(f"build_fast: native {'stale: ' + ', '.join(changed) if changed else 'current'}")
        return 1 if changed and stamp is not None else 0
    if not changed and not force:
        return 0
    shutil.rmtree(native.BUILD, ignore_errors=True)  # never leave a stale build behind
    started = time.perf_counter()
    why = build_native()
    if why:
        print(f"build_fast: {why}: the native hot path is not used", file=sys.stderr)
    else:
        took = time.perf_counter() - started
        print(f"build_fast: built the native crate into build/native in {took:.0f} s")
    return 0


def cargo() -> str | None:
    """cargo on the PATH, or where rustup puts it."""
    found = shutil.which("cargo")
    home = Path.home() / ".cargo" / "bin" / "cargo"
    return found or (str(home) if home.exists() else None)


def build_native() -> str:
    """``cargo build --release --locked`` of the crate against this Python (its stable ABI),
    the binary copied into a fresh directory, stamped, and only then put in place; why not, if
    it could not be."""
    program = cargo()
    if program is None:
        return "no cargo"
    started = datetime.now(UTC)
    hashed = {name: sha256(ROOT / name) for name in native.inputs()}
    target = ROOT / "build" / "native-target"  # cargo's own cache: rebuilds are incremental
    env = {**os.environ, "PYO3_PYTHON": sys.executable, "CARGO_TARGET_DIR": str(target)}
    command = [program, "build", "--release", "--locked", "--quiet"]
    try:
        done = subprocess.run(  # noqa: S603 - cargo, fixed arguments
            [*command, "--manifest-path", str(native.CRATE / "Cargo.toml")],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=_CARGO_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return f"cargo took over {_CARGO_SECONDS} s"
    built = target / "release" / f"lib{native.NAME}.so"
    if done.returncode != 0 or not built.exists():
        said = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        first = next((line for line in said if line.startswith("error")), said[-1])
        return f"cargo failed: {first}"
    fresh = native.BUILD.with_name(native.BUILD.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    shutil.copy(built, fresh / native.BINARY.name)
    stamp = {"built_at": started.isoformat(timespec="seconds"), "sha256": hashed}
    (fresh / native.STAMP.name).write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(native.BUILD, ignore_errors=True)
    fresh.rename(native.BUILD)
    return ""


#: A fresh build (the crates fetched, PyO3 compiled) took ~21 s on 2 shared cores.
_CARGO_SECONDS = 900


if __name__ == "__main__":
    raise SystemExit(main())
