"""``python -m bench``: run the benchmarks, print the table, write ``bench/results/``.

::

    python -m bench                 routine sizes (a 1,000,000-event replay; a few minutes)
    python -m bench --quick         short smoke run (under a minute)
    python -m bench --full          the issue's full sizes (a 10,000,000-event replay; long)
    python -m bench --only core,door
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from bench import BENCHMARKS, NotBuilt, load
from bench.common import PRESETS, RESULTS_DIR, Row, Settings
from bench.machine import facts, load_average
from bench.report import text_table, write
from streams import compiled


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_const", const="quick", dest="mode")
    size.add_argument("--full", action="store_const", const="full", dest="mode")
    tiny_help = "smallest sizes, for tests of the harness (figures mean nothing)"
    size.add_argument("--tiny", action="store_const", const="tiny", dest="mode", help=tiny_help)
    parser.add_argument(
        "--only", default="", help=f"comma-separated benchmarks, of {', '.join(BENCHMARKS)}"
    )
    parser.add_argument("--repeats", type=int, default=None, help="repetitions per figure")
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="where to write")
    parser.add_argument("--no-write", action="store_true", help="print only; write no results")
    parser.set_defaults(mode="default")
    args = parser.parse_args(argv)
    unknown = [n for n in _names(args.only) if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    return args


def _names(only: str) -> list[str]:
    return [name.strip() for name in only.split(",") if name.strip()]


def settings_of(args: argparse.Namespace) -> Settings:
    """The preset of the chosen mode, with any override."""
    settings = PRESETS[args.mode]
    if args.repeats is not None:
        settings = dataclasses.replace(settings, repeats=max(1, args.repeats))
    return settings


def run_all(settings: Settings, names: list[str]) -> list[Row]:
    """Every chosen benchmark's rows, in registry order; progress on stderr."""
    rows: list[Row] = []
    for name in names:
        try:
            rows_of = load(name)
        except NotBuilt as exc:
            print(f"bench: skipped {exc}", file=sys.stderr)
            continue
        started = time.perf_counter()
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        done = rows_of(settings)
        for row in done:  # each row says which fast path it measured (streams/compiled.py)
            row.extra["compiled"] = "yes" if compiled.mode().compiled else "no"
        rows.extend(done)
        print(f"bench: {name} done in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run, print, write; exit 0 whatever the verdicts (a goal missed is a finding, not a crash)."""
    args = parse(argv)
    settings = settings_of(args)
    machine = facts()
    print(f"bench: fast path {machine['fast_path']}", file=sys.stderr)
    names = _names(args.only) or list(BENCHMARKS)
    rows = run_all(settings, names)
    machine["load_average_at_end"] = load_average()
    print(text_table(rows))
    failed = [row.name for row in rows if row.passed is False]
    if failed:
        print(f"\ngoals not met: {', '.join(failed)}")
    if not args.no_write:
        path, compared = write(args.results, rows, settings, machine)
        if compared:
            print("\nagainst the previous run of this mode:\n  " + "\n  ".join(compared))
        print(f"\nwrote {path} and {args.results / 'latest.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
