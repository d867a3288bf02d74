"""The floor configuration: parsed from TOML and checked (`floor`, `parts`), and changed only at
a safe point (`change`). Imports `controller.model` only.
"""
