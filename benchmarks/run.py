"""Both benchmark corpora side by side: the original pipeline, the rule baseline's rewrite and
the engine's rewrite, on local Spark.

    python -m benchmarks.run [--rows N] [--runs R] [--tpch-scale S] [--only NAMES] [--out DIR] [--render]

* Notebook corpus (benchmarks/notebook_corpus): pipelines whose late filter Spark's optimizer
  cannot move, over generated Parquet tables (`--rows` rows in the big one).
* TPC-H (benchmarks/tpch): the 22 naive pipelines at scale factor `--tpch-scale` (0 skips
  them), compared by benchmarks/tpch/bench.py, then run with the engine's and the baseline's
  predicates at their tables (late filter kept).

Per pipeline: optimizer seconds (median of 3), candidates tried, rows read at the sources
(benchmarks/measure.py) by each variant, median wall time of the original and of the
engine's rewrite over `--runs` interleaved runs, and whether every variant returned the
original's rows. `--only` takes corpus names and TPC-H queries (q1, q7...). Writes
DIR/benchmarks/results.json, results.md and the plots, and rewrites the generated section of
DIR/benchmarks.md when that file has one. The exit status is 1 when any output differs.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from dataclasses import replace
from pathlib import Path

from benchmarks.measure import measure, measure_alternating, table_namer

BEGIN, END = "<!-- benchmarks.run: begin -->", "<!-- benchmarks.run: end -->"
PAPER = {"tpch_optimizer_mean_s": 0.1, "pipelines_optimizer_mean_s": 0.33, "max_time_reduction_pct": 99.0}


def spark_session(app: str = "magicpush-bench"):
    """local[2]; adaptive execution stays on, except the rule that replaces a stage found empty
    with an empty relation, which would take its scan (and rows-read figure) out of the plan."""
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName(app)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "6g")
               .config("spark.sql.shuffle.partitions", "4")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    keep_empty_stages(session)
    return session


def keep_empty_stages(spark) -> None:
    spark.conf.set("spark.sql.adaptive.optimizer.excludedRules", EMPTY_RELATION_RULE)


EMPTY_RELATION_RULE = "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation"


# ----------------------------------------------------------------------------- the two corpora

def corpus_rows(spark, rows: int, runs: int, only: set[str], data_dir: Path | None, log) -> list[dict]:
    from benchmarks.notebook_corpus import data, harness
    from benchmarks.notebook_corpus.pipelines import CASES

    cases = [c for c in CASES if not only or c.name in only]
    if not cases:
        return []
    paths = data.ensure_tables(spark, rows, data_dir)
    out = []
    for case in cases:
        r = harness.run_case(spark, paths, case, runs)
        out.append(_row("notebook", r.name, r.shape, r.optimizer_seconds, r.candidates_tried, r.runs,
                        r.equal, r.error, r.notes, r.engine, r.baseline, r.late_filter_dropped))
        log(out[-1])
    return out


def tpch_rows(spark, scale: float, runs: int, only: set[str], data_dir: Path | None, log) -> list[dict]:
    from benchmarks.tpch import bench, data, queries

    numbers = [n for n in sorted(queries.QUERIES) if not only or f"q{n}" in only]
    if scale <= 0 or not numbers:
        return []
    paths = data.ensure_tables(scale, data_dir)
    table_of = table_namer(paths)
    out = []
    for n in numbers:
        result = bench.compare_query(spark, paths, n, 3)
        tables = data.read_tables(spark, paths)
        mine = bench.rewritten_tables(tables, result) if result.pushed else tables
        theirs = bench.rewritten_tables(tables, replace(result, pushed=result.baseline, shared={})) \
            if result.baseline else tables
        notes = list(dict.fromkeys(result.refusals))[:2]
        if mine is None:
            notes.insert(0, "a table scanned twice has a scan without a predicate: not rewritten")
            mine = tables
        if theirs is None:
            theirs = tables
        runs_of, equal, error = {}, {}, result.error
        if not error:
            query = queries.QUERIES[n]
            try:
                runs_of = measure_alternating({"original": lambda: query(tables), "magicpush": lambda: query(mine)},
                                              runs, table_of)
                runs_of["baseline"] = measure(lambda: query(theirs), 0, table_of)
                equal = {v: bench.same_bags(runs_of["original"].rows, runs_of[v].rows)
                         for v in ("baseline", "magicpush")}
            except Exception as err:  # noqa: BLE001 - reported in the table
                error = f"{type(err).__name__}: {err}"
        out.append(_row("tpch", f"Q{n}", "TPC-H", result.optimizer_seconds, result.candidates_tried, runs_of,
                        equal, error, notes, {k: str(v) for k, v in result.pushed.items()},
                        {k: str(v) for k, v in result.baseline.items()}, False))
        log(out[-1])
    return out


def _row(corpus, name, shape, seconds, tried, runs, equal, error, notes, engine, baseline, dropped) -> dict:
    def variant(v):
        run = runs.get(v)
        return None if run is None else {"rows_read": run.rows_read, "total_read": run.total_read,
                                          "seconds": [round(s, 3) for s in run.seconds],
                                          "median_s": None if run.median is None else round(run.median, 3),
                                          "rows_out": len(run.rows)}

    return {"corpus": corpus, "name": name, "shape": shape,
            "optimizer_s": None if seconds is None else round(seconds, 4), "candidates": tried,
            "original": variant("original"), "baseline": variant("baseline"), "magicpush": variant("magicpush"),
            "equal": equal, "error": error, "notes": notes, "engine_predicates": engine,
            "baseline_predicates": baseline, "late_filter_dropped": dropped}


# ----------------------------------------------------------------------------- report

def speedup(row: dict) -> float | None:
    o, m = row.get("original"), row.get("magicpush")
    if not o or not m or not o["median_s"] or not m["median_s"]:
        return None
    return o["median_s"] / m["median_s"]


def failed(row: dict) -> bool:
    return bool(row["error"]) or not row["equal"] or not all(row["equal"].values())


def _rows(v: dict | None) -> str:
    return "-" if v is None else f"{v['total_read']:,}"


def _secs(v: dict | None) -> str:
    return "-" if v is None or v["median_s"] is None else f"{v['median_s']:.2f}"


def table(rows: list[dict]) -> list[str]:
    lines = ["| pipeline | shape | optimizer s | candidates | rows read: original | baseline | MagicPush "
             "| wall s: original | MagicPush | speed-up | outputs equal |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = speedup(r)
        eq = ("ERROR: " + r["error"][:80]) if r["error"] else \
            ("yes" if not failed(r) else "NO: " + ", ".join(v for v, ok in r["equal"].items() if not ok))
        secs = "-" if r["optimizer_s"] is None else f"{r['optimizer_s']:.3f}"
        lines.append(f"| {r['name']} | {r['shape']} | {secs} | {r['candidates'] if r['candidates'] is not None else '-'} "
                     f"| {_rows(r['original'])} | {_rows(r['baseline'])} | {_rows(r['magicpush'])} "
                     f"| {_secs(r['original'])} | {_secs(r['magicpush'])} | {'-' if s is None else f'{s:.2f}x'} "
                     f"| {eq} |")
    return lines


def summary(rows: list[dict]) -> dict:
    """Medians and ratios over one corpus's pipelines that ran."""
    # a pipeline whose outputs differ counts in no figure but the list of failures
    ok = [r for r in rows if not failed(r) and r["original"] and r["magicpush"]]
    times = [r["optimizer_s"] for r in rows if r["optimizer_s"] is not None]
    ups = [s for s in (speedup(r) for r in ok) if s is not None]
    reduced = [r for r in ok if r["magicpush"]["total_read"] < r["original"]["total_read"]]
    base_reduced = [r for r in ok if r["baseline"] and r["baseline"]["total_read"] < r["original"]["total_read"]]
    read = {v: sum(r[v]["total_read"] for r in ok if r[v]) for v in ("original", "baseline", "magicpush")}
    return {
        "pipelines": len(rows), "ran": len(ok), "unequal_or_failed": [r["name"] for r in rows if failed(r)],
        "optimizer_mean_s": round(statistics.fmean(times), 4) if times else None,
        "optimizer_median_s": round(statistics.median(times), 4) if times else None,
        "optimizer_max_s": round(max(times), 4) if times else None,
        "speedup_median": round(statistics.median(ups), 2) if ups else None,
        "speedup_max": round(max(ups), 2) if ups else None,
        "max_time_reduction_pct": round(100 * (1 - 1 / max(ups)), 1) if ups else None,
        "fewer_rows_magicpush": len(reduced), "fewer_rows_baseline": len(base_reduced),
        "rows_read_total": read,
        "wall_total_s": {v: round(sum(r[v]["median_s"] or 0 for r in ok), 2) for v in ("original", "magicpush")},
    }


def summary_lines(name: str, s: dict) -> list[str]:
    if not s["pipelines"]:
        return []
    read = s["rows_read_total"]
    ratio = f"{read['magicpush'] / read['original']:.3f}" if read["original"] else "-"
    return [f"{name}: {s['ran']} of {s['pipelines']} pipelines ran with equal outputs; unequal or failed: "
            f"{', '.join(s['unequal_or_failed']) or 'none'}.",
            f"Optimizer: mean {s['optimizer_mean_s']} s, median {s['optimizer_median_s']} s, max {s['optimizer_max_s']} s.",
            f"Rows read in total: original {read['original']:,}, baseline {read['baseline']:,}, MagicPush "
            f"{read['magicpush']:,} (MagicPush / original {ratio}); fewer rows than the original in "
            f"{s['fewer_rows_magicpush']} pipelines (baseline: {s['fewer_rows_baseline']}).",
            f"Wall time: median speed-up {s['speedup_median']}x, max {s['speedup_max']}x (running time "
            f"reduced by up to {s['max_time_reduction_pct']}%); sum of medians original "
            f"{s['wall_total_s']['original']} s, MagicPush {s['wall_total_s']['magicpush']} s."]


def machine() -> str:
    import os

    import pyspark

    mem = ""
    try:
        kib = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
        mem = f", {kib / 2**20:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return (f"{os.cpu_count()} cores{mem}, {platform.system()}, Python {platform.python_version()}, "
            f"PySpark {pyspark.__version__}, local[2]")


def markdown(corpus: list[dict], tpch: list[dict], settings: dict, java: str) -> str:
    sc, st = summary(corpus), summary(tpch)
    lines = [f"Machine: {machine()}, Java {java}.", ""]
    if corpus:
        c = settings["notebook_corpus"]
        lines += ["### Notebook corpus", "", f"`--rows {c['rows']} --runs {c['runs']}`", "", *table(corpus), "", *summary_lines("Notebook corpus", sc), "",
                  "![rows read and wall time per notebook pipeline](benchmarks/notebook_corpus.png)", ""]
    if tpch:
        t = settings["tpch"]
        lines += [f"### TPC-H, scale factor {t['scale']:g}", "", f"`--tpch-scale {t['scale']:g} --runs {t['runs']}`",
                  "", *table(tpch), "",
                  *summary_lines("TPC-H", st), "", "![rows read and wall time per TPC-H query](benchmarks/tpch.png)",
                  ""]
    lines += ["### Next to the paper's figures", "",
              "| | paper | here |", "|---|---|---|",
              f"| optimizer time, TPC-H (mean) | {PAPER['tpch_optimizer_mean_s']} s | "
              f"{_or_dash(st['optimizer_mean_s'], ' s')} |",
              f"| optimizer time, pipelines (mean) | {PAPER['pipelines_optimizer_mean_s']} s | "
              f"{_or_dash(sc['optimizer_mean_s'], ' s')} |",
              f"| largest running-time reduction | up to {PAPER['max_time_reduction_pct']:g}% | "
              f"{_or_dash(sc['max_time_reduction_pct'], '%')} (notebook corpus) |", ""]
    return "\n".join(lines)


def _or_dash(v, unit: str) -> str:
    return "-" if v is None else f"{v}{unit}"


def java_version(spark) -> str:
    return str(spark.sparkContext._jvm.java.lang.System.getProperty("java.version"))


def write_outputs(out: Path, corpus: list[dict], tpch: list[dict], settings: dict, java: str) -> list[Path]:
    from benchmarks import plot

    folder = out / "benchmarks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(
        {"machine": machine(), "java": java, "settings": settings, "notebook_corpus": corpus, "tpch": tpch,
         "summary": {"notebook_corpus": summary(corpus), "tpch": summary(tpch)}, "paper": PAPER}, indent=1) + "\n")
    text = markdown(corpus, tpch, settings, java)
    (folder / "results.md").write_text(text + "\n")
    written = [folder / "results.json", folder / "results.md"]
    for name, rows in (("notebook_corpus", corpus), ("tpch", tpch)):
        if rows:
            written += plot.write(rows, folder / f"{name}.png")
    page = out / "benchmarks.md"
    if page.is_file():
        current = page.read_text()
        if BEGIN in current and END in current:
            head, rest = current.split(BEGIN, 1)
            page.write_text(f"{head}{BEGIN}\n{text}\n{END}{rest.split(END, 1)[1]}")
            written.append(page)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of the corpus's big table")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per variant (median reported)")
    parser.add_argument("--tpch-scale", type=float, default=1.0, help="TPC-H scale factor (0: skip TPC-H)")
    parser.add_argument("--only", default="", help="comma-separated corpus names and TPC-H queries (q1...)")
    parser.add_argument("--out", type=Path, default=Path("docs"), help="where benchmarks.md and benchmarks/ are")
    parser.add_argument("--data-dir", type=Path, default=None, help="where the generated Parquet goes")
    parser.add_argument("--render", action="store_true",
                        help="run nothing: rewrite the page, table and plots from DIR/benchmarks/results.json")
    args = parser.parse_args(argv)
    if args.render:
        saved = json.loads((args.out / "benchmarks" / "results.json").read_text())
        for path in write_outputs(args.out, saved["notebook_corpus"], saved["tpch"], saved["settings"], saved["java"]):
            print(f"wrote {path}", file=sys.stderr)
        return 0
    only = {x.strip().lower() if x.strip().lower().startswith("q") and x.strip()[1:].isdigit() else x.strip()
            for x in args.only.split(",") if x.strip()}
    corpus_only = {x for x in only if not (x.startswith("q") and x[1:].isdigit())}
    tpch_only = only - corpus_only
    if only and not corpus_only:
        corpus_only = {"-"}  # TPC-H queries named only
    if only and not tpch_only:
        tpch_only = {"-"}

    def log(row: dict) -> None:
        print(table([row])[-1], file=sys.stderr, flush=True)

    spark = spark_session()
    corpus = corpus_rows(spark, args.rows, args.runs, corpus_only, args.data_dir, log)
    tpch = tpch_rows(spark, args.tpch_scale, args.runs, tpch_only, args.data_dir, log)
    java = java_version(spark)
    settings = {"notebook_corpus": {"rows": args.rows, "runs": args.runs},
                "tpch": {"scale": args.tpch_scale, "runs": args.runs}}
    # a corpus left out on purpose (--only naming only the other's pipelines, --tpch-scale 0)
    # keeps the figures of the previous run in DIR, so the page shows both
    previous = args.out / "benchmarks" / "results.json"
    if previous.is_file():
        before = json.loads(previous.read_text())
        for key, skipped in (("notebook_corpus", corpus_only == {"-"}), ("tpch", args.tpch_scale <= 0 or tpch_only == {"-"})):
            if skipped and before.get(key) and "settings" in before:
                settings[key] = before["settings"][key]
                if key == "tpch":
                    tpch = before[key]
                else:
                    corpus = before[key]
    print(markdown(corpus, tpch, settings, java))
    for path in write_outputs(args.out, corpus, tpch, settings, java):
        print(f"wrote {path}", file=sys.stderr)
    bad = [r["name"] for r in corpus + tpch if failed(r)]
    if bad:
        print(f"OUTPUTS DIFFER OR FAILED: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
