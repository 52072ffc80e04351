"""One corpus pipeline through the engine, the rule baseline and Spark.

Per case: the original pipeline is built under the engine's tracer; the optimizer runs on
the trace (`pipeline_plan` + `push_down_all`, timed as the TPC-H bench times it); each pushed
predicate is applied at the read of its table (a table read by several sources gets the
disjunction of their predicates, and none when one of them got none), as
tests/engine/harness.py builds a rewritten pipeline. The late filter goes only when the one
push is proved equivalent to it; otherwise it stays. The rule baseline's rewrite is built
the same way, with the late filter always kept. The three variants run on Spark: rows read at
each source (benchmarks/measure.py), wall times, and their rows, which must be equal bags.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmarks import rule_baseline
from benchmarks.measure import Run, measure, measure_alternating
from benchmarks.notebook_corpus import data
from benchmarks.notebook_corpus.pipelines import Case
from benchmarks.tpch.bench import same_bags, timed_engine
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown import late_filter
from magicpush_lab.verify.verdict import EQUIVALENT


@dataclass
class CaseResult:
    name: str
    shape: str
    optimizer_seconds: float | None = None
    candidates_tried: int | None = None
    engine: dict[str, str] = field(default_factory=dict)  # table -> the predicate applied there
    baseline: dict[str, str] = field(default_factory=dict)
    late_filter_dropped: bool = False
    runs: dict[str, Run] = field(default_factory=dict)  # original, baseline, magicpush
    equal: dict[str, bool] = field(default_factory=dict)  # variant -> same bag as the original
    notes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def all_equal(self) -> bool:
        return all(self.equal.values())


def trace_case(spark, paths: dict, case: Case):
    """The trace of reading the tables and building the original pipeline."""
    from magicpush_lab.capture.tracer import Tracer

    tracer = Tracer()
    tracer.install()
    try:
        # held while the trace is read: the tracer keeps what the program can still reach
        result = case.original(spark, data.read_tables(spark, paths))
    finally:
        tracer.uninstall()
    if tracer.warnings:
        raise RuntimeError(f"tracer: {'; '.join(tracer.warnings[:3])}")
    trace = tracer.trace()
    del result
    return trace


def table_of_source(source: P.Source, schemas: dict[str, tuple[str, ...]]) -> str | None:
    """The table a plan source reads: the one whose columns it has (the tables' column sets
    differ); None for a source made in the pipeline (an RDD turned back into a DataFrame)."""
    names = tuple(c.name for c in source.output)
    return next((t for t, cols in schemas.items() if names == cols), None)


def per_table(plan: P.Plan, arrived: list[tuple[P.Source, X.Expr]], schemas: dict) -> tuple[dict, list[str]]:
    """Table -> the predicate to filter its read with: the conjunction of what reached one of
    its sources, the disjunction over its sources; a table with a source that got nothing is
    left unfiltered (that source needs all its rows)."""
    by_source: dict[P.Source, X.Expr] = {}
    notes = []
    for source, predicate in arrived:
        if table_of_source(source, schemas) is None:
            notes.append(f"pushed to a source made inside the pipeline ({source.name}), not applied: {predicate}")
            continue
        by_source[source] = X.and_(by_source[source], predicate) if source in by_source else predicate
    out = {}
    for table in schemas:
        reads = [s for s in P.sources(plan) if table_of_source(s, schemas) == table]
        if reads and all(s in by_source for s in reads):
            out[table] = X.or_(*dict.fromkeys(by_source[s] for s in reads))
        elif any(s in by_source for s in reads):
            notes.append(f"{table} is read {len(reads)} times and not every read got a predicate: not filtered")
    return out, notes


def buildable(predicates: dict) -> tuple[dict, list[str]]:
    """Each table's predicate without the conjuncts that cannot be written as a Spark Column
    (a Python UDF call, which the baseline's rule (1) may substitute; a function with no
    Column form): fewer conjuncts keep more rows, so the rewrite stays a superset, and the
    late filter is kept."""
    from magicpush_lab.rewrite.pyspark_column import to_column

    out, notes = {}, []
    for table, predicate in predicates.items():
        kept = []
        for conjunct in X.conjuncts(predicate):
            try:
                to_column(conjunct)
                kept.append(conjunct)
            except ValueError as err:
                notes.append(f"{table}: {conjunct} not applied ({err})")
        if kept:
            out[table] = X.and_(*kept)
    return out, notes


def rewritten(spark, tables: dict, case: Case, predicates: dict, keep_late: bool):
    from magicpush_lab.rewrite.pyspark_column import to_column

    filtered = {t: df.filter(to_column(predicates[t])) if t in predicates else df for t, df in tables.items()}
    body = case.body(spark, filtered)
    return body.filter(case.late()) if keep_late else body


def optimize_case(spark, paths: dict, case: Case, optimizer_runs: int = 3) -> tuple[CaseResult, dict, dict]:
    """Trace and optimize `case`: its result so far, and the engine's and the baseline's
    predicates per table."""
    result = CaseResult(case.name, case.shape)
    trace = trace_case(spark, paths, case)
    (plan, walk, tried), seconds = timed_engine(trace, optimizer_runs)
    result.optimizer_seconds, result.candidates_tried = seconds, tried
    tables = data.read_tables(spark, paths)
    schemas = {t: tuple(df.columns) for t, df in tables.items()}
    if plan is None:
        result.notes.append("the pipeline was not translated")
        return result, {}, {}
    pushes = walk.pushed if walk is not None else []
    arrived = [(read.source, read.predicate) for p in pushes for read in (p.branches or (p,))
               if read.predicate != X.TRUE]
    mine, notes = per_table(plan, arrived, schemas)
    mine, unbuilt = buildable(mine)
    result.notes += notes + unbuilt
    if walk is not None and not pushes:
        result.notes += list(dict.fromkeys(f"{r.operator}: {r.reason}" for r in walk.refusals))[:2]
    late = late_filter(plan)
    result.late_filter_dropped = (len(pushes) == 1 and pushes[0].kind == EQUIVALENT and not pushes[0].branches
                                  and pushes[0].late_filter == late and len(mine) == 1
                                  and not notes and not unbuilt)
    theirs, notes = per_table(plan, [(p.source, p.predicate) for p in rule_baseline.baseline_push(plan)], schemas)
    theirs, unbuilt = buildable(theirs)
    result.notes += [f"baseline: {n}" for n in notes + unbuilt]
    result.engine = {t: str(e) for t, e in mine.items()}
    result.baseline = {t: str(e) for t, e in theirs.items()}
    return result, mine, theirs


def run_case(spark, paths: dict, case: Case, runs: int = 3, optimizer_runs: int = 3) -> CaseResult:
    """`optimize_case`, then the three variants on Spark (errors reported in the result)."""
    try:
        result, mine, theirs = optimize_case(spark, paths, case, optimizer_runs)
    except Exception as err:  # noqa: BLE001 - an engine failure is a finding of the benchmark
        return CaseResult(case.name, case.shape, error=f"{type(err).__name__}: {err}")
    table_of = data_table_namer(paths)
    tables = data.read_tables(spark, paths)
    builds = {"original": lambda: case.original(spark, tables),
              "magicpush": lambda: rewritten(spark, tables, case, mine, not result.late_filter_dropped)}
    try:
        result.runs = measure_alternating(builds, runs, table_of)
        result.runs["baseline"] = measure(lambda: rewritten(spark, tables, case, theirs, True), 0, table_of) \
            if theirs else result.runs["original"]
    except Exception as err:  # noqa: BLE001
        result.error = f"{type(err).__name__}: {err}"
        return result
    base = result.runs["original"].rows
    result.equal = {v: same_bags(base, result.runs[v].rows) for v in ("baseline", "magicpush")}
    return result


def data_table_namer(paths: dict):
    from benchmarks.measure import table_namer

    return table_namer(paths)
