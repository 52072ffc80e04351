"""Reach on real pipelines: a corpus of notebook pipelines ported to PySpark, each with a
hand-derived best predicate per source table, and the benchmark that replays them through the
engine (`python -m benchmarks.reach`). README.md beside this file describes the format."""
