"""Suggestions on notebooks written in the many ways people write PySpark.

Each case is a small notebook: it is run in a fresh traced IPython shell, optimized with
`optimize_trace`, and every suggestion's rewritten cells are run again (untraced) and must give
the original's rows, as a bag, for every DataFrame the case names. Applying a suggestion's edits
a second time to the rewritten notebook must change nothing.

"pushes" cases must get at least one suggestion; their "must not push" neighbours are notebooks
where the obvious place for the filter would also filter rows some other code reads: any
suggestion they get must keep those rows (and they are compared as outputs too).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import pytest

import magicpush_lab.rewrite.assemble as assemble
from magicpush_lab.pipeline import optimize_trace
from tests.cells import traced

IMPORT_F = "from pyspark.sql import functions as F"
ROWS = '[(i, i % 10, (i % 7) * 1.5) for i in range(40)]'
SCHEMA = '"id int, v int, amount double"'
CREATE = f"spark.createDataFrame({ROWS}, {SCHEMA})"
UDF = 'twice = F.udf(lambda x: 2 * x, "int")'


@dataclass(frozen=True)
class Case:
    cells: list[str]
    pushes: bool = True
    # the kind some suggestion must have: "equivalent" when the late filter is also removed
    kind: str = "equivalent"
    outputs: tuple[str, ...] = ("out",)
    # more checks on the rewritten notebook of every suggestion: (original cells, rewritten cells)
    check: Callable[[list[str], list[str]], None] | None = None
    note: str = ""  # a must-not-push case: what the notes must say
    marks: tuple = field(default_factory=tuple)


def _one_functions_import(alias: str = "F"):
    def check(old: list[str], new: list[str]) -> None:
        line = f"from pyspark.sql import functions as {alias}"
        assert sum(c.splitlines().count(line) for c in new) == 1, new
        assert sum(c.splitlines().count(line) for c in old) == 0
    return check


def _uses_alias_f_without_new_import(old: list[str], new: list[str]) -> None:
    changed = [n for o, n in zip(old, new) if o != n]
    assert any(".filter(f.col(" in c for c in changed), changed
    assert not any("F.col(" in c for c in changed), changed
    imports = lambda cells: sum(1 for c in cells for ln in c.splitlines() if "import" in ln)  # noqa: E731
    assert imports(new) == imports(old), new


def _comments_kept(old: list[str], new: list[str]) -> None:
    comments = lambda cells: Counter(m for c in cells for m in re.findall(r"#[^\n]*", c))  # noqa: E731
    kept = comments(new)
    lost = comments(old) - kept
    # only the late filter's own trailing comment may go, with the filter it describes
    assert set(lost) <= {"# the big ones"}, lost
    for text in ("# raw rows", "# forty of them", "# a note between statements", "# doubled"):
        assert kept[text] == 1, new


def _into_the_sql_text(cells: list[str], new: list[str]) -> None:
    assert new[0] == cells[0] and new[2] == cells[2], "the view's DataFrame and the other reader stay as written"
    assert 'spark.sql("SELECT id, v FROM sales WHERE `v` > 5")' in new[1], new[1]


def _helper_keeps_its_filter(old: list[str], new: list[str]) -> None:
    assert '    return df.withColumn("t", twice("v")).filter(F.col("v") > 5)' in new[1], new


def _filter_at_the_parquet_read(old: list[str], new: list[str]) -> None:
    assert any('.parquet(path).filter(F.col("v") > 5)' in c for c in new), new


def _filter_below_the_grouping(old: list[str], new: list[str]) -> None:
    assert any('sales.filter(F.col("v") > 5).' in c for c in new), new


CASES: dict[str, Case] = {
    "chain over lines with backslashes": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'out = sales \\\n    .withColumn("t", twice("v")) \\\n    .filter(F.col("v") > 5) \\\n    .select("id", "v", "t")',
    ]),
    "chain over lines in parentheses": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'out = (\n    sales\n    .withColumn("t", twice("v"))\n    .filter(F.col("v") > 5)\n    .select("id", "t")\n)',
    ]),
    "SQL string filter": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'out = sales.withColumn("t", twice("v")).filter("amount > 5")',
    ]),
    "df[col] style": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'w = sales.withColumn("t", twice("v"))\nout = w.filter(w["v"] > 5)',
    ]),
    "df.col style": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'w = sales.withColumn("t", twice("v"))\nout = w.filter(w.v > 5)',
    ]),
    "F.col style": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'out = sales.withColumn("t", twice("v")).filter(F.col("v") > 5)',
    ]),
    "col after from pyspark.sql.functions import col": Case([
        'from pyspark.sql.functions import col, udf\ntwice = udf(lambda x: 2 * x, "int")\nsales = ' + CREATE,
        'out = sales.withColumn("t", twice("v")).filter(col("v") > 5)',
    ], check=_one_functions_import()),
    "alias f from import pyspark.sql.functions as f": Case([
        'import pyspark.sql.functions as f\ntwice = f.udf(lambda x: 2 * x, "int")\nsales = ' + CREATE,
        'out = sales.withColumn("t", twice("v")).filter(f.col("v") > 5)',
    ], check=_uses_alias_f_without_new_import),
    "no functions import at all: one import line is added": Case([
        "sales = " + CREATE,
        'w = sales.withColumn("w", sales.v * 2)',
        'out = w.filter("v > 5")',
    ], check=_one_functions_import()),
    "source defined in an earlier cell than the filter": Case([
        IMPORT_F,
        "sales = " + CREATE,
        UDF + '\nw = sales.withColumn("t", twice("v"))',
        'out = w.filter(F.col("v") > 5)',
    ]),
    "source read inside a helper function": Case([
        IMPORT_F + "\n" + UDF + "\ndef load():\n    return " + CREATE,
        'sales = load()\nout = sales.withColumn("t", twice("v")).filter(F.col("v") > 5)',
    ]),
    "sources read in a loop, all meeting in the pipeline": Case([
        IMPORT_F + "\n" + UDF + "\nparts = []\nfor k in range(3):\n    parts.append(" + CREATE
        + '.withColumn("k", F.lit(k)))',
        'sales = parts[0].union(parts[1]).union(parts[2])\n'
        'out = sales.withColumn("t", twice("v")).filter(F.col("v") > 5)',
    ], kind="superset"),  # the frames are made in a loop the late filter is not in: it stays
    "df = df.filter reassignments": Case([
        IMPORT_F + "\n" + UDF + "\ndf = " + CREATE,
        'df = df.withColumn("t", twice("v"))\ndf = df.filter(F.col("v") > 5)\nout = df',
    ]),
    "spark.sql over a temp view of a traced DataFrame": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE + '\nsales.createOrReplaceTempView("sales")',
        'q = spark.sql("SELECT id, v FROM sales")\nout = q.withColumn("t", twice("v")).filter(F.col("v") > 5)',
    ]),
    # the view is read by SQL and the DataFrame directly: filtering the definition would
    # change what the other reader sees, so the filter goes into the query's SQL text
    "spark.sql over a view whose DataFrame is also read elsewhere": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE + '\nsales.createOrReplaceTempView("sales")',
        'q = spark.sql("SELECT id, v FROM sales")\nout = q.withColumn("t", twice("v")).filter(F.col("v") > 5)',
        'other = sales.filter(F.col("v") < 3)',
    ], outputs=("out", "other"), check=_into_the_sql_text),
    "where instead of filter": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'out = sales.withColumn("t", twice("v")).where(F.col("v") > 5)',
    ]),
    "comments on the filter's line and elsewhere": Case([
        IMPORT_F + "\n" + UDF + "\n# raw rows\nsales = " + CREATE + "  # forty of them",
        '# doubled\nw = sales.withColumn("t", twice("v"))\n# a note between statements\n'
        'out = w.filter(F.col("v") > 5)  # the big ones',
    ], check=_comments_kept),
    "filter in the middle of a long chain": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'out = (sales.withColumn("t", twice("v"))\n'
        '       .withColumn("a2", F.col("amount") + 1)\n'
        '       .filter(F.col("v") > 5)\n'
        '       .withColumnRenamed("a2", "amount_plus")\n'
        '       .select("id", "v", "t", "amount_plus")\n'
        '       .drop("t"))',
    ]),
    "spark.read.parquet with options": Case([
        IMPORT_F + "\n" + UDF + '\nsales = spark.read.option("mergeSchema", "false")'
        '.options(recursiveFileLookup="false").parquet(path)',
        'out = sales.withColumn("t", twice("v")).filter(F.col("v") > 5)',
    ], check=_filter_at_the_parquet_read),
    "spark.createDataFrame source": Case([
        IMPORT_F,
        "sales = " + CREATE,
        'out = sales.select("id", "amount").filter(F.col("amount") > 5)',
    ]),
    "withColumn UDF in the decorator form": Case([
        IMPORT_F + '\n@F.udf("int")\ndef twice(x):\n    return 2 * x\n\nsales = ' + CREATE,
        'out = sales.withColumn("t", twice("v")).filter(F.col("v") > 5)',
    ]),
    # ---- must-not-push neighbours: the natural place for the filter also feeds other code
    "helper function called twice, one result unfiltered": Case([
        IMPORT_F + "\n" + UDF + "\ndef load():\n    return " + CREATE,
        'sales = load()\nrest = load()\nout = sales.withColumn("t", twice("v")).filter(F.col("v") > 5)',
    ], pushes=False, outputs=("out", "rest"), note="runs more than once"),
    "loop sources, only one reaches the filter": Case([
        IMPORT_F + "\n" + UDF + "\nparts = []\nfor k in range(3):\n    parts.append(" + CREATE + ")",
        'out = parts[0].withColumn("t", twice("v")).filter(F.col("v") > 5)\nrest = parts[1]',
    ], pushes=False, outputs=("out", "rest"), note="runs more than once"),
    "df = df reassignment with the unfiltered frame kept": Case([
        IMPORT_F + "\n" + UDF + "\ndf = " + CREATE + "\nall_rows = df",
        'df = df.withColumn("t", twice("v"))\ndf = df.filter(F.col("v") > 5)\nout = df\nn = all_rows.count()',
    ], pushes=False, outputs=("out", "all_rows")),
    "late filter inside a helper that also filters another frame": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE + "\nother = " + CREATE.replace("i % 10", "i % 3"),
        'def big(df):\n    return df.withColumn("t", twice("v")).filter(F.col("v") > 5)\n'
        'out = big(sales)\nrest = big(other.withColumn("v", F.col("v") + 4))',
    ], pushes=False, outputs=("out", "rest"), check=_helper_keeps_its_filter),
    "the pipeline reads the source inside a helper that also reads another frame": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE + "\nn = sales.count()\nother = " + CREATE
        + '\ndef enrich(df):\n    return df.withColumn("t", twice("v"))',
        'out = enrich(sales).filter(F.col("v") > 5)\nrest = enrich(other)',
    ], pushes=False, outputs=("out", "rest", "sales"), note="runs more than once"),
    # the source is also counted, so each filter goes on the pipeline's own read of it: the
    # receiver of a grouping's call is the grouping, and the filter must go on the DataFrame below
    "the source's own read is a groupBy().agg(): the filter goes below the groupBy": Case([
        IMPORT_F + "\nsales = " + CREATE + "\nn = sales.count()",
        'per_v = sales.groupBy("v").agg(F.sum("amount").alias("total"))\nout = per_v.filter(F.col("v") > 5)',
    ], outputs=("out", "sales"), check=_filter_below_the_grouping),
    "the source's own read is a groupBy().pivot().agg(): the filter goes below the groupBy": Case([
        IMPORT_F + "\nsales = " + CREATE + "\nn = sales.count()",
        'wide = sales.groupBy("v").pivot("id", [1, 2, 3]).agg(F.first("amount"))\nout = wide.filter(F.col("v") > 5)',
    ], outputs=("out", "sales"), check=_filter_below_the_grouping),
    "the source's own read is na.fill(): the filter goes on the DataFrame, not on .na": Case([
        IMPORT_F + "\nsales = " + CREATE + "\nn = sales.count()",
        'filled = sales.na.fill(0)\nout = filled.filter(F.col("v") > 5)',
    ], outputs=("out", "sales"), check=_filter_below_the_grouping),
    "must not: a filter on a group's total after the source's own groupBy().agg()": Case([
        IMPORT_F + "\nsales = " + CREATE + "\nn = sales.count()",
        'per_v = sales.groupBy("v").agg(F.sum("amount").alias("total"))\nout = per_v.filter(F.col("total") > 20)',
    ], pushes=False, outputs=("out", "sales")),
    "filter after a limit in the middle of a long chain": Case([
        IMPORT_F + "\n" + UDF + "\nsales = " + CREATE,
        'out = (sales.withColumn("t", twice("v"))\n       .orderBy("id")\n       .limit(12)\n'
        '       .filter(F.col("v") > 5)\n       .select("id", "t"))',
    ], pushes=False, note="TopK"),
}


@pytest.fixture(scope="module")
def path(spark, tmp_path_factory):
    where = str(tmp_path_factory.mktemp("styles") / "sales.parquet")
    spark.createDataFrame(eval(ROWS), SCHEMA.strip('"')).coalesce(1).write.parquet(where)  # noqa: S307
    return where


@pytest.fixture()
def shell(spark, path):
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload

    ip = InteractiveShell.instance()
    ip.reset()  # nothing from an earlier notebook
    tracer = load(ip)
    ip.user_ns.update(spark=spark, path=path)
    yield ip, tracer
    unload(ip)


@pytest.fixture()
def applied(monkeypatch):
    """Every call the stage after the walk makes to rewrite.cells.apply, with what it returned."""
    calls = []

    def recording(cells, index_of, edits, alias):
        out = original(cells, index_of, edits, alias)
        calls.append((list(cells), dict(index_of), list(edits), alias, out))
        return out

    original = assemble.apply
    monkeypatch.setattr(assemble, "apply", recording)
    return calls


def _outputs(spark, path, cells, names):
    ns = {"spark": spark, "path": path}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
    return {n: Counter(map(tuple, ns[n].collect())) for n in names}


def _rewritten(cells, changes):
    new = list(cells)
    for change in changes:
        assert new[change.index] == change.original
        new[change.index] = change.rewritten
    return new


def _all(suggestions):
    for s in suggestions:
        yield s
        yield from _all(s.alternatives)


def _params():
    return [pytest.param(name, marks=list(c.marks), id=name) for name, c in CASES.items()]


@pytest.mark.parametrize("name", _params())
def test_rewritten_notebook_gives_the_same_rows_and_a_second_rewrite_changes_nothing(
        name, spark, path, shell, applied):
    case = CASES[name]
    ip, tracer = shell
    result = optimize_trace(traced(shell, case.cells), case.cells)
    suggestions = list(_all(result.suggestions))
    if case.pushes:
        assert any(s.kind == case.kind for s in suggestions), (result.notes, suggestions)
    else:
        assert suggestions or result.notes
    assert not case.note or any(case.note in n for n in result.notes), result.notes
    expected = _outputs(spark, path, case.cells, case.outputs)
    for s in suggestions:
        new = _rewritten(case.cells, s.cells)
        assert new != case.cells, s
        assert _outputs(spark, path, new, case.outputs) == expected, (s.predicate, new)
        if case.check is not None:
            case.check(case.cells, new)
    assert applied or not suggestions
    for cells, index_of, edits, alias, out in list(applied):
        once = [out.get(i, src) for i, src in enumerate(cells)]
        assert assemble.apply(once, index_of, edits, alias) == {}, once
