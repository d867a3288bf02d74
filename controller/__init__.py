"""The pure core of the table-games progressive jackpot controller.

Nothing in this package does I/O, reads a clock, draws random numbers or logs: it turns table events
into meter and award events (`decide`) and folds events into state (`evolve`). Adapters live in
`streams/`.

The rooms: `model` (the vocabulary), `config` (the floor configuration), `rules` (the table
stage), `meter` (the meter stage; its fold, which every reader replays, is `meter_evolve`),
`floor` and `evolve` (decide and evolve for the floor), `snapshot` and `codec` (state and events
as plain data), `reconciliation`. `controller` imports nothing of `streams` (checked by
`lint-imports`).
"""
