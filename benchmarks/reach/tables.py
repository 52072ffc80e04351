"""A pipeline's input tables as Parquet, generated once per pipeline, rows and seed.

Layout: <data root>/<pipeline>/r<rows>-s<seed>/<table>/part-0.parquet, the directory the
notebook reads as `REACH_DATA`. A `stamp` file there holds a hash of data.py and of the
project modules it imports (the fold families' shared table maker): a directory whose stamp
matches is reused, one whose code changed since is written again.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from benchmarks.reach.corpus import Pipeline

DEFAULT_ROOT = Path(tempfile.gettempdir()) / "magicpush-reach-data"


def data_dir(pipeline: Pipeline, rows: int, seed: int, root: Path = DEFAULT_ROOT) -> Path:
    """The directory holding the pipeline's tables (written now unless already there)."""
    target = root / pipeline.name / f"r{rows}-s{seed}"
    stamp = data_stamp(pipeline.data_path)
    if (target / "stamp").is_file() and (target / "stamp").read_text() == stamp:
        return target
    shutil.rmtree(target, ignore_errors=True)
    made = pipeline.data_module().tables(rows, seed)
    missing = set(pipeline.tables) - set(made)
    if missing:
        raise ValueError(f"{pipeline.name}: data.py makes no table {sorted(missing)}")
    for table, frame in made.items():
        write_table(frame, target / table)
    (target / "stamp").write_text(stamp)
    return target


def data_stamp(data_path: Path) -> str:
    """A hash of data.py and of the `benchmarks` modules it imports: tables made by code that
    has not changed are the same tables."""
    digest = hashlib.sha256(data_path.read_bytes())
    for name in sorted(_project_imports(data_path.read_text())):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            digest.update(Path(spec.origin).read_bytes())
    return digest.hexdigest()


def _project_imports(source: str) -> set[str]:
    """The `benchmarks.*` modules a source file imports."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchmarks."):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.startswith("benchmarks.")}
    return names


def write_table(frame: pd.DataFrame, directory: Path) -> None:
    """One table as one Parquet file in its own directory. Timestamps are written in
    microseconds, Spark's precision (nanoseconds would not read back as timestamps)."""
    directory.mkdir(parents=True, exist_ok=True)
    frame.reset_index(drop=True).to_parquet(directory / "part-0.parquet", index=False,
                                            coerce_timestamps="us", allow_truncated_timestamps=True)
