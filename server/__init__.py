"""The API server, the docreader and their gRPC plumbing."""

from core.grpc_core_logs import quiet_grpc_core

# Before anything of the package imports grpc (see core.grpc_core_logs).
quiet_grpc_core()
