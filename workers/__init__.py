"""The workers: pipeline stages, tasks, housekeeping and their settings."""

from core.grpc_core_logs import quiet_grpc_core

# Before anything of the package imports grpc (see core.grpc_core_logs).
quiet_grpc_core()
