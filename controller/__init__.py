"""The pure core of the table-games progressive jackpot controller.

Nothing in this package does I/O, reads a clock, draws random numbers or logs: it turns table events
into meter and award events (`decide`) and folds events into state (`evolve`). Adapters live in
`streams/`.
"""
