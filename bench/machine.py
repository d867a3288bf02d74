"""Facts about the machine and the code a run measured, stored with its figures so that two runs
can be compared knowingly (another CPU, another Python, a busy neighbour, uncommitted changes)."""

from __future__ import annotations

import os
import platform
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from bench.common import REPO, Figure
from streams import compiled

PACKAGES = ("table-jackpot-controller", "immutables", "msgspec", "orjson", "jsonschema")


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux)."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def memory_total_mb() -> int | None:
    """Physical memory in MiB (from /proc/meminfo on Linux)."""
    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        return None
    for line in meminfo.read_text(encoding="ascii", errors="replace").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git(*args: str) -> str:
    try:
        done = subprocess.run(  # noqa: S603 - fixed git arguments
            ["git", *args],  # noqa: S607 - git from PATH, as a developer runs it
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: a busy machine explains a slow run."""
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def facts() -> dict[str, Figure]:
    """Everything worth knowing to compare this run with another."""
    affinity = getattr(os, "sched_getaffinity", None)
    out: dict[str, Figure] = {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "cpu_model": cpu_model(),
        "cpu_logical_cores": os.cpu_count(),
        "cpu_usable_cores": len(affinity(0)) if affinity else os.cpu_count(),
        "memory_total_mb": memory_total_mb(),
        "load_average_at_start": load_average(),
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "python_executable": sys.executable,
        "sqlite": sqlite3.sqlite_version,
        "git_commit": _git("rev-parse", "--short=12", "HEAD") or "unknown",
        "git_uncommitted_files": len(_git("status", "--porcelain").splitlines()),
        # whether the fast path ran its mypyc build (make fast) or interpreted, and why
        "fast_path": str(compiled.mode()),
    }
    out.update({f"version_{name}": _version(name) for name in PACKAGES})
    return out
