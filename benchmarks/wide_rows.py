"""How long the walk takes on a row of many columns, against the budget: `python -m benchmarks.wide_rows`.

The pipeline is the widest a request body allows in practice: a source of W int columns, a
projection adding one to each, and a late filter on the first (`(c0 + 1) > 5` is the proof it
should find). No Spark is needed: the walk runs on the IR. Printed per width and budget: the
median wall time of `--runs` walks, how far over the budget it went, and what was pushed.

    python -m benchmarks.wide_rows [--widths 1000,5000,10000] [--budgets 1,60] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown import push_down


def wide_pipeline(width: int) -> P.Filter:
    cols = tuple(X.Col(f"c{i}", i + 1, "int") for i in range(width))
    outs = tuple((X.Col(f"d{i}", width + i + 1, "int"), X.Arith("+", c, X.Lit(1, "int"), "int"))
                 for i, c in enumerate(cols))
    return P.Filter(P.Project(P.Source("t", cols, origin=0), outs, origin=1),
                    X.Cmp(">", outs[0][0], X.Lit(5, "int")), origin=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="1000,5000,10000")
    parser.add_argument("--budgets", default="1,60")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("| columns | budget s | median s | over budget s | pushed |")
    print("|---|---|---|---|---|")
    for width in (int(w) for w in args.widths.split(",")):
        late = wide_pipeline(width)
        for budget in (float(b) for b in args.budgets.split(",")):
            times, pushed = [], ""
            for _ in range(args.runs):
                started = time.monotonic()
                walk = push_down(late, Budget(budget))
                times.append(time.monotonic() - started)
                pushed = "; ".join(f"{p.predicate} ({p.kind})" for p in walk.pushed) or "nothing"
            median = statistics.median(times)
            print(f"| {width:,} | {budget:g} | {median:.2f} | {max(0.0, median - budget):.2f} | {pushed} |")


if __name__ == "__main__":
    main()
