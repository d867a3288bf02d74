"""The docs name real places: every repository path and every dotted module name in README.md and
docs/ exists (issue 12: after the house moved, "keep docs/ links right")."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "deploy").glob("*.md")])
PATH = re.compile(
    r"(?<![\w/.-])((?:streams|controller|tests|bench|scripts|schemas|deploy|examples|docs)/[\w./-]+)"
)
DOTTED = re.compile(r"`((?:streams|controller)\.[\w.]+)")


def _resolves(dotted: str) -> bool:
    """A module, or an attribute path inside the longest importable module prefix."""
    parts = dotted.rstrip(".").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_path_a_doc_names_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    named = {m.rstrip(".,:;)") for m in PATH.findall(text)}
    missing = sorted(p for p in named if not (ROOT / p).exists() and "*" not in p)
    assert not missing, f"{doc.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_module_a_doc_names_imports(doc: Path) -> None:
    named = set(DOTTED.findall(doc.read_text(encoding="utf-8")))
    broken = sorted(n for n in named if not _resolves(n))
    assert not broken, f"{doc.name} names modules or attributes that do not exist: {broken}"
