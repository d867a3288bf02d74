"""The floor configuration: its shapes (`defs`), parsed from TOML and checked (`floor`,
`sections`, `parts`, `checks`), and changed only at a safe point (`change`). Imports
`controller.model` only.
"""
