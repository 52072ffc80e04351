"""The fold families: the stateful aggregations of the public Pusharoo benchmark set, each
written in PySpark, run through the reach benchmark (`python -m benchmarks.folds` prints
their table; its docstring says how to run them)."""

from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"
