"""Count what a pushed predicate does on the live data: rows of the source before and after it.

Counting runs in its own Spark job group on a worker thread, so a count that
takes too long can be cancelled; the numbers are then estimated on a sample of
the source and flagged `estimated`.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Callable, Mapping

from magicpush_lab.ir.expr import Expr, has_python_udf
from magicpush_lab.rewrite.pyspark_column import to_column

DEFAULT_TIME_LIMIT = 60.0
DEFAULT_SAMPLE_FRACTION = 0.01


class MeasureTimeout(TimeoutError):
    """Neither the exact count nor the sample finished in time."""


def _run_limited(df: Any, work: Callable[[], tuple[int, int]], limit: float | None) -> tuple[int, int] | None:
    """Run `work` (Spark jobs) in a job group; None if it did not finish within `limit` seconds."""
    sc = df.sparkSession.sparkContext
    group = f"magicpush-measure-{uuid.uuid4().hex}"
    out: dict[str, Any] = {}
    stop = threading.Event()

    def target() -> None:
        try:
            # Job groups are per thread: set it in the thread that submits the jobs.
            sc.setJobGroup(group, "magicpush measurement", interruptOnCancel=True)
            if not stop.is_set():
                out["value"] = work()
        except BaseException as err:  # reported to the caller below
            out["error"] = err

    thread = threading.Thread(target=target, name=group, daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        stop.set()
        # A job may be submitted right after the first cancel; cancel until the thread gives up.
        for _ in range(10):
            sc.cancelJobGroup(group)
            thread.join(1.0)
            if not thread.is_alive():
                break
        return None
    if "error" in out:
        raise out["error"]
    return out["value"]


def measure(frames: Mapping[int, Any], source_event: int, predicate: Expr, *,
            time_limit: float | None = DEFAULT_TIME_LIMIT, sample_fraction: float = DEFAULT_SAMPLE_FRACTION,
            sample_time_limit: float | None = None) -> tuple[int, int, bool]:
    """(rows_before, rows_after, estimated) of filtering the source DataFrame of `source_event`.

    time_limit: seconds for the exact counts (None: no limit); past it, both counts
    are taken on `df.sample(sample_fraction)` and scaled up. sample_time_limit
    bounds that sample (default: time_limit); MeasureTimeout if it is exceeded too.
    Raises KeyError if the tracer no longer holds the DataFrame and ValueError for a
    predicate that calls a Python UDF (those are never run for measuring).
    """
    if has_python_udf(predicate):
        raise ValueError("the predicate calls a Python UDF; it is not measured")
    if source_event not in frames:
        raise KeyError(f"no live DataFrame for event {source_event}")
    df = frames[source_event]
    cond = to_column(predicate)

    def exact() -> tuple[int, int]:
        return df.count(), df.filter(cond).count()

    result = _run_limited(df, exact, time_limit)
    if result is not None:
        return result[0], result[1], False
    if not 0 < sample_fraction <= 1:
        raise ValueError("sample_fraction must be in (0, 1]")
    sample = df.sample(fraction=sample_fraction, seed=17)

    def sampled() -> tuple[int, int]:
        # One pass over the sample: a NULL predicate counts as false, like filter().
        from pyspark.sql import functions as F

        row = sample.agg(F.count(F.lit(1)).alias("n"),
                         F.sum(F.when(cond, 1).otherwise(0)).alias("k")).collect()[0]
        return int(row["n"] or 0), int(row["k"] or 0)

    limit = time_limit if sample_time_limit is None else sample_time_limit
    result = _run_limited(df, sampled, limit)
    if result is None:
        raise MeasureTimeout(f"counting took longer than {time_limit}s and the sample longer than {limit}s")
    return round(result[0] / sample_fraction), round(result[1] / sample_fraction), True
