"""The one reconciliation service that ``jackpot reconcile`` and ``GET /v1/reconciliation`` both
call (`service`), its text table (`text`) and the comparison with live meters (`live`). Imports
the core, `streams.codec` and `streams.ports`.
"""
