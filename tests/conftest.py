"""Fixtures shared by every test directory."""

# fixtures: one fixture per real component (databases, Redis prefixes, RQ workers, the
# milvus-lite server, the docreader, the worker context); s3_server: a real S3 endpoint
# (moto's threaded server) for storage and end-to-end tests.
pytest_plugins = ["tests.support.fixtures", "tests.support.s3_server"]
