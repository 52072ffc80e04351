"""Run the example notebook before and after its suggestion; print the pipeline's times.

    python benchmarks/example_speedup.py [--runs 3] [--rows 1000000]

Each notebook runs in a fresh kernel; the figure is what the notebook's last
cell prints (the time of the pipeline's action, Spark already started).
Reports the median of the runs and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import statistics
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from magicpush_lab.cli import main as magicpush

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "udf_filter.ipynb"


def run_once(path: Path) -> tuple[int, float]:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=900, resources={"metadata": {"path": str(path.parent)}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    m = re.search(r"(\d+) big-earner orders in ([\d.]+) s", text)
    if not m:
        raise SystemExit(f"unexpected output: {text!r}")
    return int(m.group(1)), float(m.group(2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    os.environ["EXAMPLE_ROWS"] = str(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        original = Path(tmp) / EXAMPLE.name
        rewritten = Path(tmp) / "rewritten.ipynb"
        shutil.copy(EXAMPLE, original)
        out = io.StringIO()
        if magicpush(["optimize", str(original), "--json", "--apply", "-o", str(rewritten)], stdout=out) != 0:
            raise SystemExit("magicpush optimize failed")
        result = json.loads(out.getvalue())
        s = result["suggestions"][0]
        print(f"suggestion: {s['source']}.filter({s['predicate']})  [{s['kind']}]  "
              f"rows {s['rows_before']:,} -> {s['rows_after']:,}  optimizer {result['optimizer_seconds']:.3f} s")
        times: dict[str, list[float]] = {"original": [], "rewritten": []}
        counts = set()
        for _ in range(args.runs):
            for name, path in (("original", original), ("rewritten", rewritten)):
                n, seconds = run_once(path)
                counts.add(n)
                times[name].append(seconds)
        if len(counts) != 1:
            raise SystemExit(f"results differ between runs or versions: {sorted(counts)}")
        med = {k: statistics.median(v) for k, v in times.items()}
        for k, v in times.items():
            print(f"{k:9s} median {med[k]:.2f} s   runs {', '.join(f'{x:.2f}' for x in v)}")
        print(f"same result ({counts.pop():,} rows); speed-up {med['original'] / med['rewritten']:.1f}x")


if __name__ == "__main__":
    main()
