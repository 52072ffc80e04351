"""How readable the suggested predicates are, against the hand-written best of each corpus source.

    python -m benchmarks.readability RESULT.json [--corpus DIR]

RESULT.json is a run of `python -m benchmarks.reach` (the reach corpus, or the fold variants
with `--corpus benchmarks/folds/corpus`); each suggestion is paired with its source's `best` in
the pipeline's expected.toml. It prints, over the pairs where both exist:

- size: the predicate's nodes (its Python syntax tree's nodes, names and literals included,
  load contexts not) against the hand-written best's, as the median and the worst ratio,
  and the five largest ratios with both predicates;
- scan: of the pairs whose hand-written best is a form Spark hands to a Parquet scan, the
  share whose suggestion is one too. "A form the scan takes" is read from the code, by
  Spark's rule for data source filters (DataSourceStrategy.translateFilter): comparisons of a
  plain column with a literal, IS [NOT] NULL, isin of literals, startswith/endswith/contains
  of a literal, and AND, OR, NOT of those. Whether a scan takes it on the data is measured by
  the row counts (measure.scan_filters), which this reading of saved results does not redo.

No Spark or Z3: it reads the saved results and the corpus's expected.toml files.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
import tomllib
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent
REACH = ROOT / "reach" / "corpus"

_COMPARE_NAMES = {"col"}
_SARGABLE_METHODS = {"isNull", "isNotNull", "isin", "startswith", "endswith", "contains", "eqNullSafe"}


def size(code: str) -> int:
    """Nodes of the predicate's syntax tree, its load contexts left out.

    >>> size('F.col("v") > 995'), size('(F.col("v") > 995) & F.col("v").isNotNull()')
    (7, 15)
    """
    return sum(1 for n in ast.walk(ast.parse(code, mode="eval").body) if not isinstance(n, ast.expr_context))


def _is_column(node: ast.AST) -> bool:
    """`F.col("x")` (any alias of the functions module), `col("x")`, `df["x"]` or `df.x`."""
    if isinstance(node, ast.Call):
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
        return name in _COMPARE_NAMES and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant)
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)


def _is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_literal(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "lit":
        return all(_is_literal(a) for a in node.args)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("date", "datetime"):
        return all(_is_literal(a) for a in node.args)  # datetime.date(2020, 1, 1)
    return isinstance(node, ast.Constant)


def scan_form(code: str) -> bool:
    """The predicate is made only of what Spark hands a Parquet scan as a data source filter.

    >>> scan_form('(F.col("amount") > 950) | F.col("amount").isNull()')
    True
    >>> scan_form('F.col("net") * 2 + F.col("units") > 1500')
    False
    >>> scan_form('F.coalesce(F.col("region") != "APAC", F.lit(True))')
    False
    """
    return _sargable(ast.parse(code, mode="eval").body)


def _sargable(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        return _sargable(node.left) and _sargable(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _sargable(node.operand)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = node.left, node.comparators[0]
        return (_is_column(a) and _is_literal(b)) or (_is_literal(a) and _is_column(b))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SARGABLE_METHODS:
        return _is_column(node.func.value) and all(_is_literal(a) for a in node.args)
    return False


# `name = spark.read.parquet(f"{DATA}/table")`: the variable a suggestion names, and its table
_ASSIGNED_READ = re.compile(r"""^\s*(?P<name>\w+)\s*=\s*\(?\s*spark\.read\.parquet\(\s*f["']\{DATA\}/(?P<table>\w+)["']""",
                            re.M)


def _tables_of(directory: Path) -> dict[str, str]:
    """variable -> table, for the reads of the pipeline in `directory`."""
    code = (directory / "pipeline.py").read_text(encoding="utf-8") if (directory / "pipeline.py").exists() else ""
    return {m.group("name"): m.group("table") for m in _ASSIGNED_READ.finditer(code)}


def pairs(result: dict[str, Any], corpus: Path) -> Iterator[dict[str, Any]]:
    """(pipeline, source, suggested, best) for each suggestion whose source's table has a best
    (a suggestion names the variable that holds the read, expected.toml the table)."""
    for p in result.get("pipelines", []):
        spec_file = corpus / p["name"] / "expected.toml"
        if not spec_file.exists():
            continue
        sources = tomllib.loads(spec_file.read_text(encoding="utf-8")).get("sources", {})
        tables = _tables_of(corpus / p["name"])
        for s in p.get("suggestions", []):
            table = s["source"] if s["source"] in sources else tables.get(s["source"], "")
            best = (sources.get(table) or {}).get("best") or ""
            if best and s.get("predicate"):
                yield {"pipeline": p["name"], "source": s["source"], "suggested": s["predicate"], "best": best}


def summary(found: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures the module's doc lists."""
    ratios = [size(f["suggested"]) / size(f["best"]) for f in found]
    scan_best = [f for f in found if scan_form(f["best"])]
    both = [f for f in scan_best if scan_form(f["suggested"])]
    worst = sorted(found, key=lambda f: size(f["suggested"]) / size(f["best"]), reverse=True)[:5]
    return {
        "pairs": len(found),
        "median_ratio": round(statistics.median(ratios), 2) if ratios else None,
        "worst_ratio": round(max(ratios), 2) if ratios else None,
        "at_most_hand_size": sum(1 for r in ratios if r <= 1.0),
        "hand_scan_form": len(scan_best),
        "suggested_scan_form_too": len(both),
        "largest": [{**f, "ratio": round(size(f["suggested"]) / size(f["best"]), 2)} for f in worst],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result", type=Path)
    parser.add_argument("--corpus", type=Path, default=REACH)
    args = parser.parse_args(argv)
    got = summary(list(pairs(json.loads(args.result.read_text(encoding="utf-8")), args.corpus)))
    print(f"{args.result.name}: {got['pairs']} suggestions with a hand-written best")
    if got["pairs"]:
        print(f"  size (nodes), suggested / hand-written: median {got['median_ratio']}x, worst {got['worst_ratio']}x; "
              f"{got['at_most_hand_size']} of {got['pairs']} no larger")
        print(f"  a form the Parquet scan takes: {got['suggested_scan_form_too']} of the {got['hand_scan_form']} "
              "whose hand-written best is one")
        for f in got["largest"]:
            print(f"  {f['ratio']}x {f['pipeline']}.{f['source']}: {f['suggested']}   (hand: {f['best']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
