"""Every Prometheus collector of both engines: the embedded engine's sensor, the Kafka worker's and
the signage projector's metrics, the shared liveness gauges. The only place `prometheus_client`
is imported.
"""
