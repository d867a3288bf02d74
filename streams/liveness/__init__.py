"""Liveness: which tables have been heard from lately, and so which progressives are playable
(`tracker`). Time-driven, read by both engines. Imports the core, `streams.clock`,
`streams.door` and `streams.ports`.
"""
