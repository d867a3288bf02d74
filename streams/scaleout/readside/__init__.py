"""The read side on faust-streaming: rolling surveillance aggregates and the contribution-rate
alert over the money path's committed outputs (docs/kafka.md, *Read side*)."""
