"""Fixtures shared by every test directory."""

# s3_server: a real S3 endpoint (moto's threaded server) for storage and end-to-end tests.
pytest_plugins = ["tests.support.s3_server"]
