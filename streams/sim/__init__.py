"""The floor simulator: tables playing honest rounds (`floor`, `games`, `cards`), its settings,
posting as a device must (`post`) and heartbeats of idle tables. Imports `streams.ports` and the
core.
"""
