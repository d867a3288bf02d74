"""Kafka through confluent-kafka: client security settings, topics, ACLs per role, reading topics
to their end, the idempotent producer and `EventLog` on one topic. The only package besides
`streams.scaleout` that imports a Kafka client.
"""
