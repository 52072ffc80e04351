"""TPC-H tables as Parquet, generated once per scale factor with `tpchgen-cli`.

    python benchmarks/tpch/data.py --scale 0.01 [--data-dir DIR]

The tables go to DIR/sf<scale>/<table>.parquet, DIR defaulting to a
`magicpush-tpch` folder in the system's temp directory. A scale whose eight
files are all there is not generated again; a generation that stopped half
way is redone from scratch, since files are written to a scratch folder and
moved in place only when all eight exist.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

TABLES = ("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem")
GENERATOR = "tpchgen-cli"


def default_data_dir() -> Path:
    return Path(tempfile.gettempdir()) / "magicpush-tpch"


def generator_available() -> bool:
    """Is the `tpchgen-cli` command (from the pip package of the same name) on the PATH?"""
    return shutil.which(GENERATOR) is not None


def scale_dir(scale: float, data_dir: Path | None = None) -> Path:
    # 0.01 -> "sf0.01", 1 -> "sf1": one folder per scale factor
    return (data_dir or default_data_dir()) / f"sf{scale:g}"


def table_paths(folder: Path) -> dict[str, Path]:
    return {t: folder / f"{t}.parquet" for t in TABLES}


def ensure_tables(scale: float, data_dir: Path | None = None) -> dict[str, Path]:
    """The Parquet file of every TPC-H table at `scale`, generating them if any is missing."""
    folder = scale_dir(scale, data_dir)
    paths = table_paths(folder)
    if all(p.is_file() for p in paths.values()):
        return paths
    if not generator_available():
        raise RuntimeError(f"{GENERATOR} not found: pip install tpchgen-cli")
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        subprocess.run([GENERATOR, "parquet", "--scale-factor", f"{scale:g}", "--output-dir", str(scratch),
                        "--quiet"], check=True)
        made = table_paths(scratch)
        missing = [t for t, p in made.items() if not p.is_file()]
        if missing:
            raise RuntimeError(f"{GENERATOR} did not write {', '.join(missing)}")
        folder.mkdir(exist_ok=True)
        for t, p in made.items():
            p.replace(paths[t])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return paths


def read_tables(spark, paths: dict[str, Path]) -> dict:
    """One DataFrame per table, read from its Parquet file."""
    return {t: spark.read.parquet(str(p)) for t, p in paths.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    for table, path in ensure_tables(args.scale, args.data_dir).items():
        print(f"{table:9} {path}")


if __name__ == "__main__":
    main()
