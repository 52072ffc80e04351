"""python -m benchmarks.reach: the reach benchmark, the hand optimum's checker, the validator.

    python -m benchmarks.reach [--rows N] [--seed S] [--only NAME ...] [--budget S] [--json OUT]
    python -m benchmarks.reach --check NAME [NAME ...] [--rows N]   (or --check all)
    python -m benchmarks.reach --validate
    python -m benchmarks.reach --table      (the corpus table and counts README.md shows; no Spark)
    python -m benchmarks.reach --report RUN.json [PART.json ...]   (the tables again from saved runs; no Spark)

README.md beside this file describes the corpus format and what each figure means.
Exit status: 1 when a rewrite is unsound or a pipeline cannot be run (benchmark), a best is
unsound (--check), a directory is malformed (--validate) or the corpus is below one of its
floors (--table); else 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from benchmarks.reach import corpus

DEFAULT_ROWS = 2000
DEFAULT_BUDGET = 10.0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.reach", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"rows of each pipeline's largest table "
                   f"(default {DEFAULT_ROWS})")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated tables (default 0)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="these pipelines only")
    p.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="optimizer time budget per pipeline, "
                   f"seconds (default {DEFAULT_BUDGET:g})")
    p.add_argument("--json", metavar="OUT", help="write every figure as JSON to OUT")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="where generated tables go (default: under the system's temp directory)")
    p.add_argument("--check", nargs="+", metavar="NAME", help="check the hand optimum of these pipelines "
                   "('all': every one) instead of benchmarking")
    p.add_argument("--validate", action="store_true", help="check every corpus directory's files and keys (no Spark)")
    p.add_argument("--report", nargs="+", metavar="JSON", help="print the tables again from the JSON of earlier "
                   "runs (several: one run's parts, merged; blocker kinds from today's rules), and list the corpus "
                   "pipelines none of them has (no Spark)")
    p.add_argument("--corpus", type=Path, default=corpus.CORPUS, metavar="DIR",
                   help="the corpus directory (default: the reach corpus beside this file; "
                   "benchmarks/folds/corpus holds the user-written aggregations)")
    p.add_argument("--table", action="store_true", help="print the corpus table, its counts and the pipelines not "
                   "ported, as Markdown (no Spark)")
    return p


def _validate(root: Path) -> int:
    bad = 0
    for name in corpus.names(root):
        problems = corpus.validate(name, root)
        bad += bool(problems)
        print(f"{name}: {'ok' if not problems else '; '.join(problems)}")
    print(f"{len(corpus.names(root)) - bad} of {len(corpus.names(root))} pipelines well formed")
    return 1 if bad else 0


def _table() -> int:
    from benchmarks.reach import catalog

    print(catalog.render())
    pipelines = [corpus.load(name) for name in corpus.names()]
    return 1 if catalog.counts(pipelines).shortfalls() else 0


def _chosen(names: Sequence[str] | None, root: Path) -> list[str]:
    every = corpus.names(root)
    if not names or list(names) == ["all"]:
        return every
    unknown = sorted(set(names) - set(every))
    if unknown:
        raise SystemExit(f"no such pipeline: {', '.join(unknown)} (the corpus has {', '.join(every)})")
    return list(names)


def _check(names: list[str], args: argparse.Namespace, data_root: Path) -> int:
    from benchmarks.reach.check import check
    from benchmarks.reach.run import shell
    from benchmarks.reach.session import spark_session

    spark = spark_session()
    ip = shell(spark)
    failed = []
    for name in names:
        print(f"== {name}", flush=True)
        try:
            report = check(corpus.load(name, args.corpus), spark, ip, args.rows, args.seed, data_root,
                           log=lambda line: print(line, flush=True))
        except Exception as err:  # noqa: BLE001 - a broken pipeline is reported, the others still checked
            print(f"  FAIL: the checker could not run it: {type(err).__name__}: {err}", flush=True)
            failed.append(name)
            continue
        if not report.ok:
            failed.append(name)
    print(f"{len(names) - len(failed)} of {len(names)} hand optima sound" +
          (f"; unsound: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def _report(paths: Sequence[str], budget: float, root: Path) -> int:
    """The benchmark's tables from saved JSON: a long run done in parts, or an older run with
    the blocker rules of today."""
    import json
    from dataclasses import fields

    from benchmarks.reach.bench import PipelineResult
    from benchmarks.reach.blockers import Blocker, kind_of, reports_a_stop
    from benchmarks.reach.report import render

    results, names = [], set()
    for path in paths:
        for raw in json.loads(Path(path).read_text())["pipelines"]:
            known = {f.name for f in fields(PipelineResult)}
            data = {k: v for k, v in raw.items() if k in known}
            notes = set(raw.get("notes", ()))
            data["blockers"] = [Blocker(**{**b, "kind": kind_of(b["operator"], b["reason"])
                                           if not b["kind"].startswith(("over budget", "optimizer error",
                                                                        "rewrite conflict")) else b["kind"]})
                                for b in raw.get("blockers", ())
                                # a note taken as a blocker when the run was made: today's rules decide
                                if b["operator"] or b["reason"] not in notes or reports_a_stop(b["reason"])]
            if raw["name"] not in names:
                names.add(raw["name"])
                results.append(PipelineResult(**data))
    print(render(results, budget))
    missing = [n for n in corpus.names(root) if n not in names]
    if missing:
        print(f"\nnot in these runs ({len(missing)}): {', '.join(missing)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.validate:
        return _validate(args.corpus)
    if args.table:
        return _table()
    if args.report:
        return _report(args.report, args.budget, args.corpus)
    from benchmarks.reach.tables import DEFAULT_ROOT

    data_root = args.data_dir or DEFAULT_ROOT
    if args.check:
        return _check(_chosen(args.check, args.corpus), args, data_root)
    from benchmarks.reach.bench import bench

    return bench(_chosen(args.only, args.corpus), args.rows, args.seed, args.budget, data_root, args.json,
                 args.corpus)


if __name__ == "__main__":
    sys.exit(main())
