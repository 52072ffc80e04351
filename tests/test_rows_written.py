"""Rows written out (`df.write...`, `writeStream`, `writeTo`) are a look at every row of `df`
(capture/hooks.py): files and tables outlive the notebook, and a filter moved below `df` in place
would change what they hold. The filter then goes on the pipeline's own read of a later
DataFrame instead; a write of the late filter's own output does not stop it.

Each case is a notebook traced in a real IPython shell; each suggestion's rewritten cells run
again, and both the late filter's rows and the rows written must be the original's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import rewritten, traced

HEAD = ('from pyspark.sql import functions as F\n'
        'people = spark.createDataFrame([(i, i % 3 if i % 7 else None) for i in range(300)], "id int, k int")\n'
        'up = F.udf(lambda k: None if k is None else k + 1, "int")')


@dataclass(frozen=True)
class Case:
    title: str
    cells: tuple[str, ...]
    at_read: bool  # the filter goes to `people`'s read itself


CASES = [
    Case("must not filter the read: a DataFrame on the way is written out",
         (HEAD, 'df = people.withColumn("tw", F.col("id") * 2)\n'
                'df.write.mode("overwrite").parquet(WRITTEN)\n'
                'df3 = df.withColumn("k1", up("k"))',
          'out = df3.filter(F.col("k1") == 1)'),
         at_read=False),
    Case("the late filter's own output written out: its rows are the same, so the read is filtered",
         (HEAD, 'df = people.withColumn("tw", F.col("id") * 2)\ndf3 = df.withColumn("k1", up("k"))',
          'out = df3.filter(F.col("k1") == 1)\nout.write.mode("overwrite").parquet(WRITTEN)'),
         at_read=True),
]


def _run(spark: Any, cells: list[str], written: str) -> tuple[list, list]:
    """The late filter's rows and the rows written, from a fresh namespace."""
    ns: dict[str, Any] = {"spark": spark, "WRITTEN": written}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
    return (sorted(ns["out"].collect(), key=repr),
            sorted(spark.read.parquet(written).collect(), key=repr))


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_rows_written_case(spark, shell, tmp_path, case: Case):
    shell[0].user_ns["WRITTEN"] = str(tmp_path / "traced")
    trace = traced(shell, list(case.cells))
    assert any(i.action == "write" for i in trace.inspections)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    at_read = [s for s in result.suggestions if s.source == "people"]
    assert bool(at_read) == case.at_read, (result.notes, [(s.source, s.predicate) for s in result.suggestions])
    assert result.suggestions, result.notes  # on the way, or at the read
    original = _run(spark, list(case.cells), str(tmp_path / "original"))
    for n, s in enumerate(result.suggestions):
        assert _run(spark, rewritten(list(case.cells), s), str(tmp_path / f"rewritten-{n}")) == original
