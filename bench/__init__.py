"""Benchmarks (not tests): each runs a real deployment against a baseline measured in the same
run; `python -m bench.run_all` runs them all."""
