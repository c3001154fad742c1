"""Benchmarks for Citation Studio (run as modules, e.g. ``python -m bench.pipeline_rounds``)."""
