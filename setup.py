"""Setuptools hook: ship the event contracts (``schemas/*.json``) inside the package.

``schemas/`` stays at the top of the repository (devices in other languages integrate against
it); a built wheel carries a copy at ``streams/door/schemas/`` so an installed ``jackpot`` finds
them without a checkout (`streams.door.validation.schema_dir`). Everything else is in
pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONTRACTS = Path(__file__).resolve().parent / "schemas"


class BuildWithContracts(build_py):
    """``build_py`` that also copies the JSON Schema contracts into the built package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "streams" / "door" / "schemas"
        target.mkdir(parents=True, exist_ok=True)
        for contract in sorted(CONTRACTS.glob("table-event.v*.json")):
            shutil.copy2(contract, target / contract.name)


setup(cmdclass={"build_py": BuildWithContracts})
