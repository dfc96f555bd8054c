"""What the processes tell their operators: Prometheus metrics, OpenTelemetry traces and
structured logs, shared by the API, the docreader, the workers and the housekeeper."""
