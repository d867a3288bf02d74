"""What signs and surveillance pages show live: the feed fanned out over server-sent events
(`feed`, `client`; what surveillance keeps, `held`), activity rows and alerts from the event
stream, playability changes, and the Redis source of the feed on the Kafka engine. Imports
`embedded`, `adapters`, `liveness` and below.
"""
