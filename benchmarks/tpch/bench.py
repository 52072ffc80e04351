"""TPC-H pushdown parity: the engine's pushed predicates against Spark's own, per table.

    python benchmarks/tpch/bench.py --scale 0.01 [--runs 3] [--queries 1,3,7] [--full] [--check-rows]

For each query the naive pipeline (benchmarks/tpch/queries.py: joins first, one late
filter) is built under the engine's tracer, and the optimizer runs on the trace:
`pipeline_plan` then `push_down_all`, which walks every filter that has an operator
below it (the late one and those inside subquery branches), timed over `--runs` runs
(the median is reported). A filter the pipeline already applies right on a source
counts as reaching that scan. Spark's optimizer sees the same naive DataFrame.

Spark's pushed predicates are read from its optimized logical plan: for every Parquet
relation, the conditions of the Filter nodes stacked right above it (through
projections). That is where Spark's optimizer leaves every predicate it pushes, as
Catalyst expressions with the relation's own column ids, so each relation instance
of a self-join (Q7's two nations, Q21's three line item scans) is told apart. The
physical plan's `PushedFilters` would be a worse source: it lists only the subset the
Parquet reader can use for skipping row groups, as text, without column ids.

Comparison, per relation instance: the engine's predicate for that source (TRUE when
none arrived) must imply each of Spark's conjuncts. Both sides are put in the same
form first: the engine's predicate is applied to a fresh read of the table and read
back from Spark's optimized plan, so Spark's own rewrites (LIKE 'x%' to startswith,
constant folding, unwrapped casts) apply to both. The implication is proved with the
engine's Z3 encoding (`symbolic.encode.Evaluator`, `symbolic.solver.prove`, 2 s limit).
A function the encoding does not know is a black box shared by both sides (the same
call on the same values agrees), so a proof never rests on what it computes; a
time-out, or an expression the encoding refuses, counts as not implied. Spark's
`isnotnull(c)` conjuncts that the engine's predicate does not imply are left out of the
verdict and listed as ignored: Spark infers them from join conditions (and from the
predicates they come with), and every TPC-H column is non-null, so they filter nothing.

The paper's rule-based baseline (benchmarks/rule_baseline.py, Section 7.1.2) runs on the
same IR plan: per query, the report counts the scans that get a predicate from the engine,
from the baseline and from Spark (filters already on a source count for both the engine
and the baseline; a Spark scan counts when it has a conjunct other than `isnotnull(c)`),
and lists the scans where the engine's predicate does not imply the
baseline's, and those where it is strictly stronger (same proof as above).

A query is at parity when no scan misses anything. With `--check-rows` each query is
also run with the engine's predicates applied at its sources (late filter kept), and
must return the same rows as the naive pipeline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import z3

from benchmarks import rule_baseline
from benchmarks.tpch import data, queries
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.budget import Budget
from magicpush_lab.pushdown import filters_to_push, join_conjuncts, late_filter, push_down_all
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.translate.plan_json import Node, decode_text, expression, expressions
from magicpush_lab.pipeline import pipeline_plan
from magicpush_lab.translate.spark_plan import Context, TranslateError, to_expr
from magicpush_lab.symbolic.solver import prove

PROOF_MS = 2000

# TPC-H column names start with their table's prefix
_PREFIXES = {"r": "region", "n": "nation", "s": "supplier", "c": "customer", "p": "part", "ps": "partsupp",
             "o": "orders", "l": "lineitem"}

AT_PARITY = ("engine = Spark", "engine > Spark")


@dataclass(frozen=True)
class Relation:
    """One Parquet scan of Spark's optimized plan and the predicate Spark filters it with."""

    table: str
    column_ids: frozenset[int]
    conjuncts: tuple[X.Expr, ...]


@dataclass(frozen=True)
class TableVerdict:
    table: str  # the table, numbered from its second scan on ("nation#2")
    engine: str
    spark: str
    verdict: str
    ignored: tuple[str, ...] = ()
    note: str = ""


@dataclass
class QueryResult:
    query: int
    optimizer_seconds: float | None = None
    candidates_tried: int | None = None
    tables: list[TableVerdict] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    error: str = ""
    scans: list[str] = field(default_factory=list)  # every relation instance, labelled as in `tables`
    pushed: dict[str, X.Expr] = field(default_factory=dict)  # scan label -> the engine's predicate
    # table scanned several times -> the disjunction of its reads' predicates (shared_sources.py)
    shared: dict[str, X.Expr] = field(default_factory=dict)
    baseline: dict[str, X.Expr] = field(default_factory=dict)  # scan label -> the rule baseline's predicate
    spark_filtered: list[str] = field(default_factory=list)  # scans Spark filters by more than isnotnull
    below_baseline: list[str] = field(default_factory=list)  # scans where the engine's does not imply the baseline's
    above_baseline: list[str] = field(default_factory=list)  # scans where the baseline's does not imply the engine's

    @property
    def at_parity(self) -> bool:
        return not self.error and all(t.verdict in AT_PARITY for t in self.tables)


# ----------------------------------------------------------------------------- tracing and the engine

def trace_query(spark, paths: dict, number: int):
    """The trace of building query `number`'s naive pipeline, and its DataFrame."""
    from magicpush_lab.capture.tracer import Tracer

    tracer = Tracer()
    tracer.install()
    try:
        df = queries.QUERIES[number](data.read_tables(spark, paths))
    finally:
        tracer.uninstall()
    if tracer.warnings:
        # a call the tracer could not record leaves the engine a different pipeline
        raise RuntimeError(f"tracer: {'; '.join(tracer.warnings[:3])}")
    return tracer.trace(), df


def run_engine(trace):
    """The IR plan and the walk of all its filters (None when no filter has anywhere to go)."""
    plan = pipeline_plan(trace)
    budget = Budget()
    walk = push_down_all(plan, budget) if plan is not None and (filters_to_push(plan) or join_conjuncts(plan)) \
        else None
    return plan, walk, budget.candidates_tried


def filters_on_sources(plan) -> list[tuple[P.Source, X.Expr]]:
    """Filters the naive pipeline already applies right on a source (a subquery's WHERE):
    they reach the scan without any pushdown, so they count for the engine's side too."""
    found = []
    for node in P.nodes(plan):
        below = node
        while isinstance(below, P.Filter):
            below = below.child
        if isinstance(node, P.Filter) and isinstance(below, P.Source):
            found.append((below, node.condition))
    return found


def timed_engine(trace, runs: int):
    """`run_engine` `runs` times: the last result and the median wall time."""
    times, result = [], None
    for _ in range(max(1, runs)):
        started = time.perf_counter()
        result = run_engine(trace)
        times.append(time.perf_counter() - started)
    return result, statistics.median(times)


# ----------------------------------------------------------------------------- Spark's side

def optimized_plan(df) -> Node:
    return decode_text(df._jdf.queryExecution().optimizedPlan().toJSON())


def relations(df) -> list[Relation]:
    """Every Parquet scan in `df`'s optimized plan with the conjuncts Spark filters it with."""
    found: list[Relation] = []
    seen: dict[str, int] = {}
    _collect(optimized_plan(df), found, seen)
    return found


def _collect(node: Node, found: list[Relation], seen: dict[str, int]) -> None:
    if node.cls == "Filter":
        chain = _scan_under(node)
        if chain is not None:
            conjuncts, scan = chain
            found.append(_relation(scan, conjuncts, seen))
            return
    if node.cls in ("LogicalRelation", "LogicalRelationWithTable"):
        found.append(_relation(node, (), seen))
        return
    for kid in node.kids:
        _collect(kid, found, seen)


def _scan_under(node: Node) -> tuple[tuple[X.Expr, ...], Node] | None:
    """Filters (and projections) down to a scan: the filters' conjuncts in the scan's columns."""
    conjuncts: list[X.Expr] = []
    renames: list[dict[X.Col, X.Expr]] = []
    while True:
        if node.cls == "Filter":
            cond = to_expr(expression(node.field("condition")), Context())
            for mapping in reversed(renames):
                cond = X.substitute(cond, mapping)
            conjuncts.extend(X.conjuncts(cond))
        elif node.cls == "Project":
            renames.append({c: e for c, e in (_named(e) for e in expressions(node.field("projectList")))
                            if isinstance(e, X.Col)})
        elif node.cls in ("LogicalRelation", "LogicalRelationWithTable"):
            return tuple(conjuncts), node
        else:
            return None
        if len(node.kids) != 1:
            return None
        node = node.kids[0]


def _named(e: Node) -> tuple[X.Col, X.Expr]:
    value = to_expr(e, Context())
    if e.cls == "Alias":
        return X.Col(e.field("name"), int((e.field("exprId") or {}).get("id", -1)), X.dtype_of(value)), value
    return value, value  # type: ignore[return-value]


def _relation(scan: Node, conjuncts: tuple[X.Expr, ...], seen: dict[str, int]) -> Relation:
    outputs = (to_expr(e, Context()) for e in expressions(scan.field("output")))
    cols = [c for c in outputs if isinstance(c, X.Col)]
    table = table_of(c.name for c in cols)
    seen[table] = seen.get(table, 0) + 1
    label = table if seen[table] == 1 else f"{table}#{seen[table]}"
    return Relation(label, frozenset(c.id for c in cols), conjuncts)


def table_of(names) -> str:
    for name in names:
        prefix = name.split("_", 1)[0]
        if prefix in _PREFIXES:
            return _PREFIXES[prefix]
    return "?"


def normalized(spark, path, predicate: X.Expr) -> tuple[tuple[X.Expr, ...], str]:
    """The engine's predicate as Spark's optimizer writes it over a fresh read of the table;
    the IR unchanged (and why) when it cannot be built as a Column."""
    from magicpush_lab.rewrite.pyspark_column import to_column

    try:
        df = spark.read.parquet(str(path)).filter(to_column(predicate))
        rels = relations(df)
    except (ValueError, TranslateError) as err:
        return X.conjuncts(predicate), f"compared as the engine wrote it ({err})"
    if len(rels) != 1:
        return X.conjuncts(predicate), "compared as the engine wrote it (plan not read back)"
    return rels[0].conjuncts, ""


# ----------------------------------------------------------------------------- implication

def by_name(e: X.Expr) -> X.Expr:
    """Columns identified by name alone: both sides read one table, whose names are unique."""
    return X.transform(e, lambda x: X.Col(x.name, 0, x.dtype) if isinstance(x, X.Col) else None)


def implies(premise: tuple[X.Expr, ...], conclusion: X.Expr, timeout_ms: int = PROOF_MS) -> bool | None:
    """Does every row the premise keeps pass the conclusion (NULL counts as false)? None when the
    engine's encoding cannot express one side."""
    ev = Evaluator()
    row = SymbolicRow("r")
    try:
        kept = z3.And(*[truth(ev.eval(by_name(p), row)) for p in premise]) if premise else z3.BoolVal(True)
        passes = truth(ev.eval(by_name(conclusion), row))
    except NotModelled:
        return None
    return prove(z3.Implies(z3.And(domain([row]), kept), passes), timeout_ms).proved


def is_isnotnull(e: X.Expr) -> bool:
    return isinstance(e, X.IsNotNull) and isinstance(e.arg, X.Col)


def compare_table(label: str, engine: tuple[X.Expr, ...], spark: tuple[X.Expr, ...], note: str = "",
                  pushed: bool = True) -> TableVerdict:
    """The verdict for one relation instance: which of Spark's conjuncts the engine's implies."""
    missing, ignored = [], []
    for c in spark:
        if implies(engine, c):
            continue
        (ignored if is_isnotnull(c) else missing).append(c)
    engine_text = _text(engine) if pushed and engine else "-"
    spark_text = _text(spark) if spark else "-"
    if missing:
        verdict = "engine misses " + _text(missing)
    elif pushed and engine and not all(implies(spark, e) for e in engine):
        verdict = "engine > Spark"
    else:
        verdict = "engine = Spark"
    return TableVerdict(label, engine_text, spark_text, verdict, tuple(map(str, ignored)), note)


def _text(conjuncts) -> str:
    return _pretty(X.and_(*conjuncts))


def _pretty(e: X.Expr) -> str:
    return str(e).replace("datetime.date", "date")


def compare_query(spark, paths: dict, number: int, runs: int = 1) -> QueryResult:
    """Trace, optimize and compare one query; engine errors are reported, not raised."""
    result = QueryResult(number)
    try:
        trace, df = trace_query(spark, paths, number)
    except RuntimeError as err:
        result.error = f"engine fails with error: {err}"
        return result
    try:
        (plan, walk, tried), seconds = timed_engine(trace, runs)
    except Exception as err:  # noqa: BLE001 - an engine failure is a finding of the benchmark
        result.error = f"engine fails with error: {type(err).__name__}: {err}"
        return result
    result.optimizer_seconds, result.candidates_tried = seconds, tried
    if walk is None:
        result.refusals.append("every filter already sits on its source")
    else:
        result.refusals = [f"{r.operator}: {r.reason}" + (f" [{r.candidate}]" if r.candidate else "")
                           for r in walk.refusals]
    if walk is not None:
        across = _across_sources(plan, late_filter(plan))
        if across:
            result.refusals.append("conjunct(s) reading several sources, left in the late filter: "
                                   + "; ".join(map(_pretty, across)))
    on_sources = filters_on_sources(plan) if plan is not None else []
    # a table read by several branches: each read gets its own branch's predicate, the table
    # the disjunction of them
    arrived = [(read.source, read.predicate) for p in (walk.pushed if walk is not None else ())
               for read in (p.branches or (p,)) if read.predicate != X.TRUE]
    shared = [(frozenset(c.id for b in p.branches for c in b.source.output), p.predicate)
              for p in (walk.pushed if walk is not None else ()) if p.branches and p.predicate != X.TRUE]
    pushed = _by_scan(arrived + on_sources)
    rules = rule_baseline.baseline_push(plan) if plan is not None else []
    by_rules = _by_scan([(p.source, p.predicate) for p in rules] + on_sources)
    for rel in relations(df):
        result.scans.append(rel.table)
        mine = next((pred for ids, pred in pushed.items() if ids & rel.column_ids), None)
        theirs = next((pred for ids, pred in by_rules.items() if ids & rel.column_ids), None)
        if theirs is not None:
            result.baseline[rel.table] = theirs
            if not implies(X.conjuncts(mine) if mine is not None else (), theirs):
                result.below_baseline.append(rel.table)
        if mine is not None and not implies(X.conjuncts(theirs) if theirs is not None else (), mine):
            result.above_baseline.append(rel.table)
        if any(not is_isnotnull(c) for c in rel.conjuncts):  # not only the inferred isnotnull(key)
            result.spark_filtered.append(rel.table)
        if mine is not None:
            result.pushed[rel.table] = mine
        for ids, disjunction in shared:
            if ids & rel.column_ids:
                result.shared[rel.table.split("#", 1)[0]] = disjunction
        if mine is None:
            if rel.conjuncts:
                result.tables.append(compare_table(rel.table, (), rel.conjuncts, pushed=False))
            continue
        table = rel.table.split("#", 1)[0]
        engine, note = normalized(spark, paths[table], mine)
        result.tables.append(compare_table(rel.table, engine, rel.conjuncts, note))
    return result


def _by_scan(arrived: list[tuple[P.Source, X.Expr]]) -> dict[frozenset[int], X.Expr]:
    """Column ids of a source -> the conjunction of the predicates that reached it."""
    found: dict[frozenset[int], X.Expr] = {}
    for source, predicate in arrived:
        ids = frozenset(c.id for c in source.output)
        found[ids] = X.and_(found[ids], predicate) if ids in found else predicate
    return found


def _across_sources(plan, late) -> list[X.Expr]:
    """The late filter's conjuncts whose columns come from more than one source: the inner
    join's split gives them to no input, whatever per-input part they imply."""
    if late is None:
        return []
    owners = {c: i for i, s in enumerate(P.sources(plan)) for c in s.output}
    return [c for c in X.conjuncts(late.condition)
            if len({owners[x] for x in X.columns(c) if x in owners}) > 1]


def rewritten_tables(tables: dict, result: QueryResult) -> dict | None:
    """The input tables with the engine's predicates applied, for running the query rewritten
    (its late filter stays); a table scanned more than once gets the disjunction of its scans'
    predicates, or None is returned when one of its scans got none."""
    from magicpush_lab.rewrite.pyspark_column import to_column

    bases = [s.split("#", 1)[0] for s in result.scans]
    out = dict(tables)
    for label, predicate in result.pushed.items():
        table = label.split("#", 1)[0]
        if bases.count(table) != 1:
            # scanned several times: the table keeps the rows any of its scans needs, so every
            # scan must have a predicate (a scan's own filter is stronger, and the late filter stays)
            scans = [label for label in result.scans if label.split("#", 1)[0] == table]
            if table in result.shared:
                predicate = result.shared[table]
            elif all(label in result.pushed for label in scans):
                predicate = X.or_(*(result.pushed[label] for label in scans))
            else:
                return None
        out[table] = tables[table].filter(to_column(predicate))
    return out


def same_rows(original, rewritten) -> bool:
    """Equal bags of rows, numbers compared as floats to 1e-9 relative."""
    return same_bags(original.collect(), rewritten.collect())


def same_bags(a_rows, b_rows) -> bool:
    """`same_rows` over rows already collected."""
    import math
    from decimal import Decimal

    def bag(rows):
        out = [tuple(float(v) if isinstance(v, (float, Decimal)) else v for v in r) for r in rows]
        return sorted(out, key=lambda r: repr(tuple(round(v, 2) if isinstance(v, float) else v for v in r)))

    a, b = bag(a_rows), bag(b_rows)
    return len(a) == len(b) and all(
        len(x) == len(y) and all(math.isclose(u, v, rel_tol=1e-9, abs_tol=1e-6)
                                 if isinstance(u, float) and isinstance(v, float) else u == v
                                 for u, v in zip(x, y))
        for x, y in zip(a, b))


def check_rows(tables: dict, result: QueryResult) -> str:
    """Run the query with the engine's predicates at its sources: does it return the same rows?"""
    if not result.pushed:
        return "nothing pushed"
    rewritten = rewritten_tables(tables, result)
    if rewritten is None:
        return "not run (a table is scanned twice, and one scan got no predicate)"
    number = result.query
    if same_rows(queries.QUERIES[number](tables), queries.QUERIES[number](rewritten)):
        return "same rows"
    return "DIFFERENT ROWS"


# ----------------------------------------------------------------------------- report

def _short(text: str, width: int) -> str:
    return text if width <= 0 or len(text) <= width else text[: width - 1] + "…"


def report(results: list[QueryResult], width: int = 70) -> str:
    lines = ["| query | optimizer s | candidates | table | engine | Spark | verdict |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        secs = "-" if r.optimizer_seconds is None else f"{r.optimizer_seconds:.3f}"
        cands = "-" if r.candidates_tried is None else str(r.candidates_tried)
        if r.error:
            lines.append(f"| Q{r.query} | {secs} | {cands} | | | | {_short(r.error, width)} |")
            continue
        if not r.tables:
            lines.append(f"| Q{r.query} | {secs} | {cands} | (no scan filtered by either) | | "
                         "| engine = Spark |")
        for i, t in enumerate(r.tables):
            head = f"| Q{r.query} | {secs} | {cands} " if i == 0 else "| | | "
            verdict = t.verdict + (f" (ignored: {', '.join(t.ignored)})" if t.ignored else "")
            lines.append(f"{head}| {t.table} | {_short(t.engine, width)} | {_short(t.spark, width)} "
                         f"| {_short(verdict, width)} |")
    lines.append("")
    lines.extend(query_table(results, width))
    lines.append("")
    lines.extend(baseline_table(results, width))
    lines.append("")
    for r in results:
        why = [f"  {x}" for x in dict.fromkeys(r.refusals)]
        notes = [f"  {t.table}: {t.note}" for t in r.tables if t.note]
        if why or notes:
            lines.append(f"Q{r.query} refusals and notes:")
            lines.extend(_short(x, 2 * width + 40 if width > 0 else 0) for x in why + notes)
    lines.append("")
    lines.append(summary(results))
    return "\n".join(lines)


def query_table(results: list[QueryResult], width: int = 70) -> list[str]:
    """One line per query: at parity or not, what the engine misses, and the engine's reasons."""
    lines = ["| query | optimizer s | candidates | verdict | engine misses | engine's refusals |",
             "|---|---|---|---|---|---|"]
    for r in results:
        secs = "-" if r.optimizer_seconds is None else f"{r.optimizer_seconds:.3f}"
        cands = "-" if r.candidates_tried is None else str(r.candidates_tried)
        missed = [t for t in r.tables if t.verdict.startswith("engine misses")]
        if r.error:
            verdict = "engine fails with error"
        elif not missed:
            verdict = "engine >= Spark"
        else:
            verdict = f"misses on {len(missed)} of {sum(t.spark != '-' for t in r.tables)} scans"
        what = "; ".join(f"{t.table}: {t.verdict.removeprefix('engine misses ')}" for t in missed)
        why = "; ".join(dict.fromkeys(r.refusals)) or r.error
        lines.append(f"| Q{r.query} | {secs} | {cands} | {verdict} | {_short(what, width) or '-'} "
                     f"| {_short(why, width) or '-'} |")
    return lines


def baseline_table(results: list[QueryResult], width: int = 70) -> list[str]:
    """Per query, how many scans get a predicate from the engine, from the paper's rule-based
    baseline (benchmarks/rule_baseline.py) and from Spark's optimizer, and the scans where the
    engine's predicate does not imply the baseline's (below) or is not implied by it (above)."""
    lines = ["| query | tables with a predicate: engine | baseline | Spark | engine below baseline on "
             "| engine above baseline on |", "|---|---|---|---|---|---|"]
    for r in results:
        if r.error:
            lines.append(f"| Q{r.query} | - | - | - | {_short(r.error, width)} | |")
            continue
        lines.append(f"| Q{r.query} | {len(r.pushed)} | {len(r.baseline)} | {len(r.spark_filtered)} "
                     f"| {', '.join(r.below_baseline) or '-'} | {', '.join(r.above_baseline) or '-'} |")
    return lines


def summary(results: list[QueryResult]) -> str:
    times = [r.optimizer_seconds for r in results if r.optimizer_seconds is not None]
    parity = sum(r.at_parity for r in results)
    timing = f"median {statistics.median(times):.3f} s, max {max(times):.3f} s" if times else "no timings"
    below = sum(bool(r.below_baseline) for r in results if not r.error)
    above = sum(bool(r.above_baseline) for r in results if not r.error)
    counts = [sum(len(getattr(r, f)) for r in results) for f in ("pushed", "baseline", "spark_filtered")]
    return (f"{parity} of {len(results)} queries at parity with Spark; optimizer time {timing}\n"
            f"tables with a predicate: engine {counts[0]}, rule baseline {counts[1]}, Spark {counts[2]}; "
            f"engine less selective than the baseline in {below} of {len(results)} queries, "
            f"more selective in {above}")


def spark_session():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("magicpush-tpch")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="TPC-H pushdown parity: the engine against Spark")
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3, help="optimizer runs per query (median reported)")
    parser.add_argument("--queries", default="", help="comma-separated query numbers (default: all 22)")
    parser.add_argument("--full", action="store_true", help="print predicates untruncated")
    parser.add_argument("--check-rows", action="store_true",
                        help="also run each query with the engine's predicates at its sources")
    args = parser.parse_args(argv)
    numbers = [int(q) for q in args.queries.split(",") if q.strip()] or sorted(queries.QUERIES)
    paths = data.ensure_tables(args.scale, args.data_dir)
    spark = spark_session()
    results = []
    for n in numbers:
        results.append(compare_query(spark, paths, n, args.runs))
        print(f"Q{n} done", file=sys.stderr, flush=True)
    print(f"TPC-H scale factor {args.scale:g}, optimizer median of {args.runs} run(s)\n")
    print(report(results, 0 if args.full else 70))
    if args.check_rows:
        tables = data.read_tables(spark, paths)
        print("\nThe engine's predicates applied at the sources (late filter kept):")
        for r in results:
            print(f"  Q{r.query}: {check_rows(tables, r)}")


if __name__ == "__main__":
    main()
