"""Running a corpus notebook's cells in an IPython shell, as a kernel runs them, and reading
what came out: the sink's rows as a bag, and the rows each table's read handed on.

Every run starts from a fresh namespace (the shell is reset) holding the benchmark's one
SparkSession as `spark`, with REACH_DATA pointing at the pipeline's tables. A run can hand a
predicate to a table's read: `spark.read.parquet` of that table's directory then returns the
DataFrame filtered by it, as if the notebook's read cell had `.filter(...)` after it.
"""

from __future__ import annotations

import math
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, Sequence

from benchmarks.reach.rows import executed_plan, rows_handed_on


class CellFailed(Exception):
    """A notebook cell raised; the message names the cell (1-based among code cells)."""


@dataclass
class Outcome:
    """One run of a notebook: its sink's rows (a normalised bag), rows handed on per table."""

    bag: list[tuple] = field(default_factory=list)
    read: dict[str, int] = field(default_factory=dict)
    error: str = ""
    others: dict[str, list[tuple]] = field(default_factory=dict)  # bags of other named DataFrames

    @property
    def ok(self) -> bool:
        return not self.error


def shell(spark: Any) -> Any:
    """The IPython shell the notebooks run in (one per process, as in a kernel)."""
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.user_ns["spark"] = spark
    return ip


def reset(ip: Any, spark: Any) -> None:
    """A fresh namespace and history, with the session as `spark`, and no cached DataFrame
    left from an earlier run (a run must read its tables itself to be measured)."""
    spark.catalog.clearCache()
    ip.reset(new_session=True)
    ip.user_ns["spark"] = spark


def run_cells(ip: Any, cells: Sequence[str], ids: Sequence[str] | None = None) -> None:
    """Run code cells in order, stored in history and labelled with their ids as a notebook's
    kernel runs them (the tracer matches executions to cells by id); their output is
    swallowed. Raises CellFailed at the first cell that raises."""
    from IPython.utils.capture import capture_output

    for i, source in enumerate(cells):
        kwargs = {"cell_id": ids[i]} if ids else {}
        with capture_output(display=True):
            result = ip.run_cell(source, store_history=True, **kwargs)
        err = result.error_before_exec or result.error_in_exec
        if err is not None:
            first = source.strip().splitlines()[0][:80] if source.strip() else ""
            raise CellFailed(f"cell {i + 1} ({first!r}): {first_line(err)}")


def first_line(err: BaseException) -> str:
    """An exception as one line: its type and the start of its message."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:300] if text else ''}"


@contextmanager
def data_env(data: Path) -> Iterator[None]:
    """REACH_DATA set to the pipeline's table directory for the block."""
    old = os.environ.get("REACH_DATA")
    os.environ["REACH_DATA"] = str(data)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("REACH_DATA", None)
        else:
            os.environ["REACH_DATA"] = old


@contextmanager
def filtered_reads(predicates: dict[str, str]) -> Iterator[None]:
    """`spark.read.parquet(<dir>/<table>)` hands on `df.filter(<predicate>)` for the tables
    given, the predicate being PySpark Column code over `F` (pyspark.sql.functions)."""
    from pyspark.sql import functions as F
    from pyspark.sql.readwriter import DataFrameReader

    if not predicates:
        yield
        return
    original = DataFrameReader.parquet

    def parquet(self, *paths, **options):
        df = original(self, *paths, **options)
        tables = {PurePosixPath(str(p).rstrip("/")).name for p in paths}
        chosen = [predicates[t] for t in tables if t in predicates]
        return df.filter(eval(chosen[0], {"F": F})) if len(chosen) == 1 and len(tables) == 1 else df

    DataFrameReader.parquet = parquet
    try:
        yield
    finally:
        DataFrameReader.parquet = original


def outcome(namespace: dict[str, Any], sink: str, measure: str, tables: set[str]) -> Outcome:
    """The sink's bag, and the rows each table's read handed on when the `measure` DataFrame
    (the sink itself, or the Spark DataFrame a pandas sink was collected from) is run."""
    from pyspark.sql import DataFrame

    if sink not in namespace:
        return Outcome(error=f"the notebook left no variable `{sink}`")
    target = namespace.get(measure)
    if not isinstance(target, DataFrame):
        return Outcome(error=f"`{measure}` is not a Spark DataFrame ({type(target).__name__})")
    fresh = target.select("*")  # a new query, so the metrics are this run's alone
    rows = fresh.collect()
    read = rows_handed_on(executed_plan(fresh), tables)
    result = namespace[sink]
    bag = normal_bag(rows if result is target else _rows_of(result))
    return Outcome(bag=bag, read=read)


def _rows_of(value: Any) -> list:
    """The rows of a sink that is not the measured DataFrame: Spark or pandas."""
    import pandas as pd
    from pyspark.sql import DataFrame

    if isinstance(value, DataFrame):
        return value.collect()
    if isinstance(value, pd.Series):
        value = value.to_frame()
    if isinstance(value, pd.DataFrame):
        return list(value.itertuples(index=False, name=None))
    raise TypeError(f"the sink is a {type(value).__name__}, not a DataFrame")


def normal_value(v: Any) -> Any:
    """A value as it compares in a bag: NaN equal to NaN, floats to 9 significant digits
    (sums in another order differ in the last bits), numpy and Decimal as Python numbers,
    nested rows and arrays as tuples, maps as sorted item tuples, pandas' missing as None."""
    import numpy as np
    import pandas as pd

    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (np.generic,)):
        v = v.item()
    if isinstance(v, Decimal):
        v = float(v)
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else float(f"{v:.9g}")
    if isinstance(v, pd.Timestamp):
        return v.to_pydatetime()
    if isinstance(v, (list, tuple, np.ndarray)):
        return tuple(normal_value(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((str(k), normal_value(x)) for k, x in v.items()))
    if isinstance(v, (str, int, bool, date, datetime)):
        return v
    return repr(v)


def normal_bag(rows: Sequence[Any]) -> list[tuple]:
    """Rows as a sorted list of normalised tuples: equal lists are equal bags."""
    bag = [tuple(normal_value(v) for v in row) for row in rows]
    return sorted(bag, key=repr)


def same_bag(a: list[tuple], b: list[tuple]) -> bool:
    return a == b


def first_difference(a: list[tuple], b: list[tuple]) -> str:
    """A short account of how two bags differ, for a report."""
    from collections import Counter

    ca, cb = Counter(a), Counter(b)
    only_a, only_b = list((ca - cb).elements()), list((cb - ca).elements())
    return (f"{len(a)} vs {len(b)} rows; only in the first: {only_a[:2]}{' ...' if len(only_a) > 2 else ''}; "
            f"only in the second: {only_b[:2]}{' ...' if len(only_b) > 2 else ''}")


def run_notebook(ip: Any, spark: Any, cells: Sequence[str], data: Path, sink: str, measure: str,
                 tables: set[str], predicates: dict[str, str] | None = None, others: Sequence[str] = ()) -> Outcome:
    """Run the cells from a fresh namespace (optionally with predicates at reads) and read
    the outcome, with the bags of the `others` variables too; a failing cell is an outcome
    with an error, not an exception."""
    reset(ip, spark)
    with data_env(data), filtered_reads(predicates or {}):
        try:
            run_cells(ip, cells)
            got = outcome(ip.user_ns, sink, measure, tables)
            got.others = {name: normal_bag(_rows_of(ip.user_ns[name])) for name in others}
        except CellFailed as err:
            return Outcome(error=str(err))
        except Exception as err:
            return Outcome(error=first_line(err))
    return got
