"""The hand optimum's check: is each table's `best` sound at that table's read?

    python -m benchmarks.reach --check NAME [NAME ...] [--rows N] [--seed S]

Generates the pipeline's tables, runs the notebook as it is, then again with every table's
`best` at its read (and, when several tables have one, with each alone), the late filter and
everything else left in place, and compares the sink's rows as bags (order-insensitive, NaN
equal to NaN). When every `best` is of kind "equivalent", the DataFrame the late filter is
applied to (`late_input`) must already hold exactly the original's rows once the bests are
at the reads: the late filter would remove nothing more. Prints the rows each table's read
handed on before and after. A check on data where the sink is empty, or where a best removes
no row at its read, shows nothing, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from benchmarks.reach.corpus import Pipeline
from benchmarks.reach.run import Outcome, first_difference, run_notebook
from benchmarks.reach.tables import data_dir


@dataclass
class CheckReport:
    name: str
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # the check failed
    warnings: list[str] = field(default_factory=list)  # the check passed but shows little

    @property
    def ok(self) -> bool:
        return not self.problems


def check(pipeline: Pipeline, spark: Any, ip: Any, rows: int, seed: int, data_root: Path,
          log: Callable[[str], None] = print) -> CheckReport:
    """Check one pipeline's hand optimum (module docstring); logs what it found."""
    report = CheckReport(pipeline.name)
    _check(report, pipeline, spark, ip, rows, seed, data_root)
    for line in report.lines + [f"warning: {w}" for w in report.warnings] + [f"FAIL: {p}" for p in report.problems]:
        log(f"  {line}")
    return report


def _check(report: CheckReport, pipeline: Pipeline, spark: Any, ip: Any, rows: int, seed: int,
           data_root: Path) -> None:
    data = data_dir(pipeline, rows, seed, data_root)
    tables = set(pipeline.tables)
    others = [pipeline.late_input] if pipeline.late_input else []

    def run(predicates: dict[str, str]) -> Outcome:
        return run_notebook(ip, spark, pipeline.code_cells, data, pipeline.sink, pipeline.measure, tables,
                            predicates, others)

    original = run({})
    if not original.ok:
        report.problems.append(f"the original notebook fails: {original.error}")
        return
    report.lines.append(f"original: {len(original.bag)} sink rows; read {_reads(original.read, pipeline.tables)}")
    if not original.bag:
        report.warnings.append("the sink is empty on this data: the check shows nothing")
    if pipeline.late_input and original.others.get(pipeline.late_input) == original.bag:
        report.warnings.append(f"the late filter removes no row of `{pipeline.late_input}` on this data")
    bests = pipeline.bests
    if not bests:
        report.lines.append("nothing may move: no best to check")
        _trap(report, pipeline, original, run)
        return
    variants = {"all bests": bests}
    if len(bests) > 1:
        variants.update({f"best of {t} alone": {t: p} for t, p in bests.items()})
    for label, predicates in variants.items():
        got = run(predicates)
        _compare(report, label, original, got, pipeline.tables)
        if label == "all bests" and got.ok:
            _equivalence(report, pipeline, original, got)
            for table in predicates:
                if got.read.get(table, 0) >= original.read.get(table, 0):
                    report.warnings.append(f"the best of {table} removes no row at its read on this data "
                                           "beyond what the original already removes there")


def _compare(report: CheckReport, label: str, original: Outcome, got: Outcome, tables: list[str]) -> None:
    if not got.ok:
        report.problems.append(f"{label}: the notebook fails: {got.error}")
        return
    same = got.bag == original.bag
    report.lines.append(f"{label}: {'same rows' if same else 'DIFFERENT ROWS'}; read {_reads(got.read, tables)}")
    if not same:
        report.problems.append(f"{label}: {first_difference(original.bag, got.bag)}")


def _equivalence(report: CheckReport, pipeline: Pipeline, original: Outcome, got: Outcome) -> None:
    """With only "equivalent" bests, the late filter must remove nothing more."""
    if any(s.kind != "equivalent" for s in pipeline.sources if s.best):
        return
    if not pipeline.late_input:
        report.warnings.append("kind \"equivalent\" is unchecked: expected.toml names no `late_input`")
        return
    before_late = got.others.get(pipeline.late_input)
    if before_late != original.bag:
        report.problems.append(f"kind \"equivalent\": with the bests at the reads the late filter still removes rows "
                               f"({first_difference(original.bag, before_late or [])})")
    else:
        report.lines.append("equivalent: with the bests at the reads the late filter removes nothing")


def _trap(report: CheckReport, pipeline: Pipeline, original: Outcome, run: Callable[[dict], Outcome]) -> None:
    """The obvious pushdown (`trap_best`) must change the sink's rows on the data: the data
    then holds the row or case that makes it wrong."""
    if not pipeline.traps:
        report.warnings.append("no `trap_best` names the obvious pushdown: the data is not shown to catch it")
        return
    got = run(pipeline.traps)
    if not got.ok:
        report.warnings.append(f"the obvious pushdown (`trap_best`) fails to run: {got.error}")
    elif got.bag == original.bag:
        report.warnings.append("the obvious pushdown (`trap_best`) gives the same rows on this data: "
                               "the data does not show the trap")
    else:
        report.lines.append(f"the trap shows: the obvious pushdown gives {first_difference(original.bag, got.bag)}")


def _reads(read: dict[str, int], tables: list[str]) -> str:
    return ", ".join(f"{t} {read[t]:,}" if t in read else f"{t} (not read)" for t in tables)
