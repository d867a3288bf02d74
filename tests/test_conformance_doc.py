"""docs/conformance.md stays true: every test and every piece of code it names exists, every row
that claims to be done names a test, and every requirement issue 17 lists has a row.

A renamed or deleted test makes this fail, so the table a regulator reads never points at nothing.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "conformance.md"
REFERENCE = re.compile(r"`((?:tests|controller|streams)/[\w/]+\.py)(?:::(\w+))?`")
REQUIRED = (
    "649a.12",
    "649a.11(b)",
    "649a.11(c)",
    "Meters kept per level",
    "last 25 hits",
    "Recovery to the exact prior state",
    "Self-check at start",
    "No change to a live meter",
    "unplayable on lost communication",
    "Near-simultaneous hits",
    "Dual control",
    "ceiling",
    "Liability per gaming day",
)


@cache
def _names(path: Path) -> frozenset[str]:
    """Top-level functions and classes of a Python file (tests and code alike)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return frozenset(node.name for node in tree.body if isinstance(node, kinds))


def missing(text: str) -> list[str]:
    """Every reference in ``text`` whose file or top-level name does not exist."""
    gone = []
    for match in REFERENCE.finditer(text):
        path, name = ROOT / match.group(1), match.group(2)
        if not path.is_file() or (name is not None and name not in _names(path)):
            gone.append(match.group(0))
    return gone


def rows(text: str) -> list[list[str]]:
    """The table rows (requirement, code, tests, status), header and rule lines left out."""
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[0] not in ("requirement", "---"):
            out.append(cells)
    return out


def test_every_named_test_and_piece_of_code_exists() -> None:
    assert missing(DOC.read_text(encoding="utf-8")) == []


def test_a_row_that_is_done_names_a_test() -> None:
    for requirement, _, tests, status in rows(DOC.read_text(encoding="utf-8")):
        if not status.startswith("not yet"):
            assert "`tests/" in tests, requirement
            assert "::test_" in tests, requirement


def test_every_requirement_of_the_issue_has_a_row() -> None:
    requirements = " ".join(row[0] for row in rows(DOC.read_text(encoding="utf-8")))
    for phrase in REQUIRED:
        assert phrase in requirements, phrase


def test_the_check_catches_a_test_that_no_longer_exists() -> None:
    text = (
        "`tests/controller/test_properties.py::test_replay_is_deterministic` "
        "`tests/controller/test_properties.py::test_that_was_renamed` "
        "`controller/no_such_module.py`"
    )
    assert missing(text) == [
        "`tests/controller/test_properties.py::test_that_was_renamed`",
        "`controller/no_such_module.py`",
    ]
