"""The embedded engine: one process, one durable log (`engine`), with the checks one submitted
event goes through (`intake`), its mystery arming and seal (`arming`, `mystery`), its dead-letter
records (`dead_letter`), and the signage feed that keeps the read model in step with it
(`signage_feed`). Imports the door, liveness, codec, clock and ports; its adapters are handed to
it.
"""
