"""The reach benchmark: every corpus pipeline through the engine, against its hand optimum.

Per pipeline: the notebook's cells run in an IPython shell with the engine's tracer loaded;
the optimizer runs on the trace (timed); its rewrites are applied to the cells, which run
again from a fresh namespace; the notebook runs once more with the hand-derived best
predicate at each table's read. The sink's rows of the rewritten run must be the original's
(sound); the rows each table's read hands on (rows.py) are compared between the original,
the engine's rewrite and the hand optimum (effective). What stopped the engine is read from
its refusals and notes and sorted into blocker kinds (blockers.py).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.reach import corpus, engine
from benchmarks.reach.blockers import Blocker, blockers_of
from benchmarks.reach.corpus import Pipeline
from benchmarks.reach.run import (
    CellFailed,
    Outcome,
    data_env,
    first_difference,
    first_line,
    outcome,
    reset,
    run_cells,
    run_notebook,
    shell,
)
from benchmarks.reach.tables import data_dir

SLACK = 0.01  # the engine's rewrite may read 1% more rows than the hand optimum and count as effective


@dataclass
class PipelineResult:
    name: str
    reducible: bool
    tables: list[str]
    reducible_tables: list[str]
    sound: bool | None = None  # None: not known (the original failed)
    effective: bool | None = None  # None: not reducible, or not measured
    share: float | None = None  # of the possible reduction the engine reached
    spark_alone: bool = False  # Spark's own filters at the reads already reach the hand optimum
    read: dict[str, dict[str, int]] = field(default_factory=dict)  # variant -> table -> rows handed on
    sink_rows: int | None = None
    optimizer_seconds: float | None = None
    over_budget: bool = False
    suggestions: list[dict] = field(default_factory=list)
    blockers: list[Blocker] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""  # the harness could not run the pipeline (its original fails)
    unsound_why: str = ""


def bench(names: list[str], rows: int, seed: int, budget: float, data_root: Path, json_out: str | None,
          root: Path = corpus.CORPUS) -> int:
    """Run the benchmark on `names`, print the tables, write JSON; exit status 1 when any
    pipeline's rewrite is unsound or a pipeline could not be run."""
    from benchmarks.reach.report import render, summary
    from benchmarks.reach.session import spark_session

    spark = spark_session()
    ip = shell(spark)
    results = []
    for i, name in enumerate(names):
        started = time.monotonic()
        results.append(bench_guarded(name, spark, ip, rows, seed, budget, data_root, root))
        r = results[-1]
        print(f"[{i + 1}/{len(names)}] {name}: {time.monotonic() - started:.0f} s, sound {r.sound}, "
              f"effective {r.effective}, optimizer {r.optimizer_seconds} s", file=sys.stderr, flush=True)
        if json_out:  # after every pipeline: a long run stopped half-way keeps what it measured
            _write_json(json_out, rows, seed, budget, results, summary)
    print(render(results, budget))
    return 1 if any(r.sound is False or r.error for r in results) else 0


def _write_json(out: str, rows: int, seed: int, budget: float, results: list, summary: Any) -> None:
    doc = {"rows": rows, "seed": seed, "budget": budget, "summary": summary(results),
           "pipelines": [asdict(r) for r in results]}
    Path(out).write_text(json.dumps(doc, indent=1, default=str) + "\n")


def bench_guarded(name: str, spark: Any, ip: Any, rows: int, seed: int, budget: float,
                  data_root: Path, root: Path = corpus.CORPUS) -> PipelineResult:
    """`bench_one`, where a pipeline the harness cannot run (a malformed directory, a failing
    data.py, a tracer that raises) is that pipeline's error, not the end of the run."""
    try:
        return bench_one(corpus.load(name, root), spark, ip, rows, seed, budget, data_root)
    except Exception as err:  # noqa: BLE001 - one broken pipeline must not hide the others' figures
        return PipelineResult(name, False, [], [], error=f"the harness could not run it: {first_line(err)}")


def bench_one(pipeline: Pipeline, spark: Any, ip: Any, rows: int, seed: int, budget: float,
              data_root: Path) -> PipelineResult:
    """One pipeline: traced run and optimizer, the engine's rewrite, the hand optimum
    (module docstring)."""
    result = PipelineResult(pipeline.name, pipeline.reducible, pipeline.tables,
                            [s.table for s in pipeline.sources if s.best])
    data = data_dir(pipeline, rows, seed, data_root)
    original, optimized = traced_run(pipeline, spark, ip, data, budget)
    if not original.ok:
        result.error = f"the original notebook fails: {original.error}"
        return result
    result.read["original"], result.sink_rows = original.read, len(original.bag)
    result.optimizer_seconds, result.over_budget = optimized.seconds, optimized.seconds > budget
    result.suggestions, result.notes = optimized.suggestions, optimized.notes + optimized.skipped
    result.blockers = blockers_of(optimized, budget)
    rewritten = engine_run(pipeline, spark, ip, data, optimized, original)
    result.read["engine"] = rewritten.read
    result.sound = rewritten.ok and rewritten.bag == original.bag
    if not rewritten.ok:
        result.unsound_why = f"a rewritten cell fails: {rewritten.error}"
    elif not result.sound:
        result.unsound_why = first_difference(original.bag, rewritten.bag)
    if pipeline.reducible:
        _hand_run(result, pipeline, spark, ip, data, original)
        _effectiveness(result)
    return result


def _hand_run(result: PipelineResult, pipeline: Pipeline, spark: Any, ip: Any, data: Path,
              original: Outcome) -> None:
    """The notebook with every table's best at its read: the rows it hands on. The checker
    vouches for its soundness; should it not hold on this data, the result's notes say so."""
    hand = run_notebook(ip, spark, pipeline.code_cells, data, pipeline.sink, pipeline.measure,
                        set(pipeline.tables), pipeline.bests)
    if not hand.ok or hand.bag != original.bag:
        result.notes.append(f"the hand optimum does not hold on this data: "
                            f"{hand.error or first_difference(original.bag, hand.bag)}")
    result.read["hand"] = hand.read


def traced_run(pipeline: Pipeline, spark: Any, ip: Any, data: Path, budget: float
               ) -> tuple[Outcome, engine.Optimized]:
    """The notebook as written, traced; the optimizer on its trace; then the sink measured."""
    sources = [c.source for c in pipeline.cells]
    ids = [f"cell-{i}" for i in range(len(sources))]
    code_ids = [ids[i] for i, c in enumerate(pipeline.cells) if not c.markdown]
    reset(ip, spark)
    with data_env(data):
        try:
            with engine.tracing(ip) as tracer:
                run_cells(ip, pipeline.code_cells, code_ids)
                trace = tracer.trace()
        except CellFailed as err:
            return Outcome(error=str(err)), engine.Optimized()
        optimized = engine.optimize(trace, sources, ids, budget)
        del trace
        try:
            measured = outcome(ip.user_ns, pipeline.sink, pipeline.measure, set(pipeline.tables))
        except Exception as err:
            measured = Outcome(error=first_line(err))
    return measured, optimized


def engine_run(pipeline: Pipeline, spark: Any, ip: Any, data: Path, optimized: engine.Optimized,
               original: Outcome) -> Outcome:
    """The notebook with the engine's rewrites, from a fresh namespace (the original's outcome
    when the engine rewrote nothing)."""
    if not optimized.changes:
        return original
    cells = [optimized.changes.get(i, c.source) for i, c in enumerate(pipeline.cells) if not c.markdown]
    return run_notebook(ip, spark, cells, data, pipeline.sink, pipeline.measure, set(pipeline.tables))


def _effectiveness(result: PipelineResult) -> None:
    """Effective: the rewrite's reads over the reducible tables hand on no more than the hand
    optimum's (1% slack); the share of the possible reduction it reached."""
    def total(variant: str) -> int:
        return sum(result.read.get(variant, {}).get(t, 0) for t in result.reducible_tables)

    if result.reducible_tables and not result.read.get("original"):
        # the original's plan shows no read at all (an RDD round trip scans in a job of its own):
        # not measured. A table a plan lacks beside others was pruned (a filter Spark knows is
        # false there): no row handed on
        result.effective, result.spark_alone, result.share = None, False, None
        return
    original, rewritten, hand = total("original"), total("engine"), total("hand")
    result.effective = result.sound is True and rewritten <= hand * (1 + SLACK)
    result.spark_alone = original <= hand * (1 + SLACK)
    result.share = (original - rewritten) / (original - hand) if original > hand else None


def median_seconds(results: list[PipelineResult]) -> float | None:
    times = [r.optimizer_seconds for r in results if r.optimizer_seconds is not None]
    return statistics.median(times) if times else None
