"""How the cost of tracing and optimizing grows with the pipeline: `python -m benchmarks.scale`.

The pipeline is the commonest long shape of real notebooks, built in a loop:

    df = src
    for i in range(K):
        df = df.withColumn(f"c{i}", F.col("a") + i)
    result = df.filter(F.col("c0") > 99000)

For each K (and for a 500-column source with K = 25 beside the narrow one), in one IPython
shell on a local SparkSession:

- build, plain and traced: the loop cell's wall time without and with the kernel extension
  (median of `--runs` alternating runs, after a warm-up), and their ratio;
- trace: the bytes of the trace the kernel hands out (the JSON of `trace_bundle()`), per
  recorded call, and the time to pull it;
- optimizer: `optimize_trace` on that trace;
- CLI: `magicpush optimize` on the pipeline as a percent script, replayed in a fresh kernel,
  optimized and measured (wall time of the whole command).

It prints a table, writes `docs/benchmarks/scale.json` and plots cost against K on log-log
axes (`docs/benchmarks/scale.png`) with the slope of each stage, fitted on K >= 100.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROWS = 100_000
SOURCE = "from pyspark.sql import functions as F\nsrc = spark.range(0, {rows}).selectExpr({columns})"
LOOP = "df = src\nfor i in range({k}):\n    df = df.withColumn(f'c{{i}}', F.col('a') + i)"
LATE = "result = df.filter(F.col('c0') > 99000)"
SESSION = ("from pyspark.sql import SparkSession\n"
           "spark = (SparkSession.builder.master('local[2]').config('spark.ui.enabled', 'false')\n"
           "         .config('spark.sql.shuffle.partitions', '2').getOrCreate())")


def _columns(width: int) -> str:
    return ", ".join(repr(c) for c in ["id AS a", *(f"id % {j + 2} AS w{j}" for j in range(width - 1))])


def _cells(k: int, width: int) -> list[str]:
    return [SOURCE.format(rows=ROWS, columns=_columns(width)), LOOP.format(k=k), LATE]


def _run(ip: Any, source: str) -> float:
    started = time.perf_counter()
    ip.run_cell(source, store_history=True).raise_error()
    return time.perf_counter() - started


def _case(ip: Any, k: int, width: int, runs: int) -> dict[str, Any]:
    from magicpush_lab.kernel.bundles import trace_bundle
    from magicpush_lab.kernel.extension import load, tracer_of, unload
    from magicpush_lab.pipeline import optimize_trace
    from magicpush_lab.protocol import TRACE_MIME

    cells = _cells(k, width)
    plain, traced = [], []
    for attempt in range(runs + 1):  # the first round warms the JVM up and is not counted
        unload(ip)
        _run(ip, cells[0])
        seconds = _run(ip, cells[1])
        if attempt:
            plain.append(seconds)
        load(ip)
        _run(ip, cells[0])
        seconds = _run(ip, cells[1])
        if attempt:
            traced.append(seconds)
    _run(ip, cells[2])
    tracer = tracer_of(ip)
    started = time.perf_counter()
    text = json.dumps(trace_bundle()._repr_mimebundle_()[TRACE_MIME])
    pull = time.perf_counter() - started
    trace = tracer.trace()
    calls = len(trace.events)
    started = time.perf_counter()
    result = optimize_trace(trace, cells)
    optimizer = time.perf_counter() - started
    unload(ip)
    return {"k": k, "width": width, "plain": statistics.median(plain), "traced": statistics.median(traced),
            "trace_bytes": len(text), "calls": calls, "pull": pull, "optimizer": optimizer,
            "suggestions": [s.predicate for s in result.suggestions], "notes": list(result.notes)[:3]}


def _cli(k: int, width: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / f"loop_{k}.py"
        script.write_text("\n".join(f"# %%\n{cell}\n" for cell in [SESSION, *_cells(k, width)]))
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "magicpush_lab.cli", "optimize", str(script), "--json"],
                              capture_output=True, text=True, timeout=3600)
        seconds = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise RuntimeError(f"magicpush optimize failed for K={k}: {done.stderr[-2000:]}")
        return seconds


def slope(rows: list[dict[str, Any]], key: str) -> float | None:
    """The least-squares slope of log(cost) against log(K) over the rows with K >= 100."""
    points = [(math.log(r["k"]), math.log(r[key])) for r in rows if r["k"] >= 100 and r[key] > 0]
    if len(points) < 2:
        return None
    mx = statistics.mean(x for x, _ in points)
    my = statistics.mean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else None


STAGES = (("plain", "build, plain kernel"), ("traced", "build, extension loaded"), ("pull", "pull the trace"),
          ("optimizer", "optimizer"), ("cli", "magicpush optimize (total)"), ("trace_bytes", "trace bytes"))


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| K | columns | build, plain | build, traced | ratio | trace | bytes/call | pull | optimizer | CLI |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['k']} | {r['width']} | {r['plain']:.2f} s | {r['traced']:.2f} s | "
                     f"{r['traced'] / r['plain']:.2f}x | {r['trace_bytes'] / 1e6:.2f} MB | "
                     f"{r['trace_bytes'] / max(r['calls'], 1):,.0f} | {r['pull']:.2f} s | {r['optimizer']:.2f} s | "
                     f"{r['cli']:.1f} s |")
    narrow = [r for r in rows if r["width"] == 1]
    slopes = ", ".join(f"{label} {s:.2f}" for key, label in STAGES if (s := slope(narrow, key)) is not None)
    return "\n".join(lines) + f"\n\nSlopes of log(cost) against log(K), K >= 100: {slopes}."


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    narrow = [r for r in rows if r["width"] == 1]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    ks = [r["k"] for r in narrow]
    for key, label in STAGES[:-1]:
        s = slope(narrow, key)
        left.plot(ks, [r[key] for r in narrow], marker="o", label=f"{label} (slope {s:.2f})" if s else label)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("K (withColumn calls)")
    left.set_ylabel("seconds")
    left.legend(fontsize=8)
    s = slope(narrow, "trace_bytes")
    right.plot(ks, [r["trace_bytes"] for r in narrow], marker="o", label=f"trace bytes (slope {s:.2f})")
    right.plot(ks, [r["trace_bytes"] / r["calls"] for r in narrow], marker="s", label="bytes per call")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("K (withColumn calls)")
    right.legend(fontsize=8)
    fig.suptitle("MagicPush Lab: cost against pipeline length (log-log)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ks", default="25,100,300,1000", help="pipeline lengths (comma-separated)")
    parser.add_argument("--wide", type=int, default=500, help="columns of the wide source (0: skip)")
    parser.add_argument("--runs", type=int, default=3, help="timed builds per variant (median reported)")
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI's replays")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"), help="where scale.json and scale.png go")
    args = parser.parse_args(argv)

    from IPython.core.interactiveshell import InteractiveShell
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    ip = InteractiveShell.instance()
    ip.user_ns["spark"] = spark
    cases = [(int(k), 1) for k in args.ks.split(",")] + ([(25, args.wide)] if args.wide else [])
    rows = []
    for k, width in cases:
        row = _case(ip, k, width, args.runs)
        row["cli"] = float("nan") if args.no_cli else _cli(k, width)
        print(f"K={k} columns={width}: plain {row['plain']:.2f} s, traced {row['traced']:.2f} s, "
              f"trace {row['trace_bytes']:,} bytes, pull {row['pull']:.2f} s, optimizer {row['optimizer']:.2f} s, "
              f"CLI {row['cli']:.1f} s; suggested {row['suggestions']}", flush=True)
        rows.append(row)
    print()
    print(table(rows))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scale.json").write_text(json.dumps(rows, indent=1))
    plot(rows, args.out / "scale.png")
    print(f"\nwrote {args.out / 'scale.json'} and {args.out / 'scale.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
