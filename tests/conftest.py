"""The whole suite: the fast path is tested as it runs, compiled when its build is current.

Importing `streams.compiled` first installs its finder before any test imports
`controller.fast`, so a current mypyc build (``make fast``) is what the differential tests
exercise. A build that no longer matches its sources ends the session at once with one line:
an edited ``.py`` must never be tested through an old compiled copy, nor silently fall back to
interpreted while the build sits there. ``JACKPOT_COMPILED=0`` tests the interpreted path.

Hypothesis runs without its per-example deadline suite-wide: a deadline is a timed test, and
timing belongs in the benchmarks (`bench/`); on a loaded 2-core CI host a slow example is
noise, not a failure of the rules (tests that set their own settings keep the rest of them).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from streams import compiled

settings.register_profile("jackpot", deadline=None)
settings.load_profile("jackpot")


def pytest_configure(config: pytest.Config) -> None:
    """Stop the session if the mypyc build is stale (rebuild with ``make fast``)."""
    del config
    stamp = compiled.read_stamp()
    if stamp is None or os.environ.get(compiled.ENV) == "0":
        return
    changed = compiled.stale(stamp)
    if changed:
        more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
        pytest.exit(
            f"the compiled fast path is stale: {changed[0]}{more} changed since it was built; "
            f"run `make fast` (or set {compiled.ENV}=0 to test interpreted)",
            returncode=4,
        )


def pytest_report_header() -> str:
    """Which fast path this run tests, on the session's first lines."""
    return f"fast path: {compiled.mode()}"
