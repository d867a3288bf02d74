"""Every shell block in README.md runs as written (issue 16: `jackpot replay` could not be tried
as the README said, for want of an events file).

A block is run with bash (``set -euo pipefail``) in a fresh directory that holds the project's
``examples/`` and ``docs/``, with the project's virtual environment first on PATH, as a user
who ran ``. .venv/bin/activate`` would have it. A block that cannot run in a test (it serves
until Ctrl-C, or installs from the network) says so in an HTML comment just above it,
``<!-- readme: not run (why) -->``; the test checks that only those listed here do.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(
    r"(?:<!-- readme: not run \((?P<why>[^)]*)\) -->\n)?```sh\n(?P<body>.*?)```", re.S
)
#: the first command of each block left out, and why it may be
NOT_RUN = {"make run": "serves until Ctrl-C", "python3 -m venv .venv": "installs from the index"}


def blocks() -> list[tuple[str, str | None]]:
    """(body, why not run) of every ```sh block in README.md, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [(m["body"], m["why"]) for m in BLOCK.finditer(text)]


def test_only_the_known_blocks_are_left_out() -> None:
    left_out = {body.splitlines()[0].split("#")[0].strip() for body, why in blocks() if why}
    assert left_out == set(NOT_RUN)
    assert sum(1 for _, why in blocks() if why is None) >= 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "body", [body for body, why in blocks() if why is None], ids=lambda b: b.splitlines()[1][:40]
)
def test_a_readme_block_runs_as_written(body: str, tmp_path: Path) -> None:
    for name in ("examples", "docs"):
        (tmp_path / name).symlink_to(ROOT / name)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", body],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, (
        f"{body}\n--- stdout\n{run.stdout[-3000:]}\n--- stderr\n{run.stderr}"
    )
    assert "Traceback" not in run.stderr


def test_the_readme_links_the_rules_it_ships() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "../shared/rules" not in text
    assert "docs/rules/" in text
    shipped = sorted(p.name for p in (ROOT / "docs" / "rules").glob("*.txt"))
    assert len(shipped) == 5
    index = (ROOT / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    for name in shipped:
        assert f"`{name}`" in index, name
        assert "§" in (ROOT / "docs" / "rules" / name).read_text(encoding="utf-8")[:2000]


def test_the_readme_links_resolve() -> None:
    """Every relative link in README.md names a file or folder of the project."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert missing == []


def test_make_help_says_what_each_target_does() -> None:
    """``make help`` once said ``run`` would "simulate a floor and replay it"; it serves."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    helps = dict(re.findall(r"^([a-z-]+):.*## (.*)$", makefile, re.M))
    assert "serve" in helps["run"]
    assert "replay" not in helps["run"]
    deps = (ROOT / "scripts" / "system-deps.sh").read_text(encoding="utf-8")
    for package in ("redis-server", "chromium", "prometheus"):
        assert package in deps
        assert package in helps["system-deps"]
        assert f"`{package}`" in (ROOT / "README.md").read_text(encoding="utf-8")
