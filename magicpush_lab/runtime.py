"""Time a suggestion on the live session: the pipeline's last DataFrame as the notebook made
it, against the same pipeline rebuilt with the filter at the source (rebuild.py).

Each run writes the DataFrame to Spark's "noop" sink, which executes the whole plan and keeps
nothing. Runs alternate (original, rewritten, original...) so that a warming cache or a busy
machine weighs on both, and each side reports the median of its runs. All runs share one time
limit; past it the runs made so far are reported. Both outputs are then compared as bags when
they are small enough.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

from magicpush_lab.rebuild import REMOVED, Rebuilt, rebuild
from magicpush_lab.capture.tracer import Tracer

DEFAULT_RUNS = 3
MAX_RUNS = 20
DEFAULT_TIME_LIMIT = 60.0
COMPARE_MAX_ROWS = 100_000


def rewritten_sink(tracer: Tracer, request: dict[str, Any]) -> Rebuilt:
    """The sink of `request`'s pipeline rebuilt with its predicate at the source, and the late
    filter left out when the suggestion is "equivalent" (kept when "superset")."""
    from magicpush_lab.ir.serialize import expr_from_json
    from magicpush_lab.rewrite.pyspark_column import to_column

    source, sink, late = request.get("source_event"), request.get("sink_event"), request.get("late_filter_event")
    if not isinstance(sink, int):
        return Rebuilt(None, "the suggestion names no pipeline's last DataFrame (sink_event): optimize again")
    frames = tracer.frames()
    if source not in frames:
        return Rebuilt(None, f"the kernel no longer holds the source DataFrame (event {source})")
    try:
        condition = to_column(expr_from_json(request["predicate_ir"]))
    except Exception as err:  # an IR the Column printer cannot express
        return Rebuilt(None, f"the predicate cannot be made a Spark Column: {type(err).__name__}: {err}")
    with tracer.suspended():
        replacements: dict[int, Any] = {source: frames[source].filter(condition)}
    if request.get("kind") == "equivalent":
        if not isinstance(late, int):
            return Rebuilt(None, "an equivalent suggestion must name its late filter (late_filter_event)")
        replacements[late] = REMOVED
    return rebuild(sink, replacements, tracer)


#: the most rows of the source the per-row cost is timed on, and the seconds that timing may take
COST_SAMPLE_ROWS = 50_000
COST_TIME_LIMIT = 10.0  # seconds the estimate may add to measuring, in the user's kernel
#: below this many source rows, Spark's fixed costs (seconds per job on a busy machine) hide
#: the pipeline's time per row: no figure rather than noise
COST_MIN_ROWS = 10_000


def per_row_cost(tracer: Tracer, source: int, sink: int, source_rows: int,
                 sample_rows: int = COST_SAMPLE_ROWS, time_limit: float = COST_TIME_LIMIT) -> dict[str, Any]:
    """What the pipeline's work costs per source row, never by a second pass over the whole
    source: the pipeline rebuilt on the source's first n and first n/5 rows (n = `sample_rows`,
    at most the source's rows), each written to the noop sink, best of two runs after a warm-up;
    the growth of the time per added row is the cost. Fixed costs (a job's start, Python
    workers, code generation) take the same time at both sizes and so drop out of it. A growth
    no larger than the spread between two runs of one size is noise, not a cost: no figure.
    {"seconds_per_row", "sample_rows", "small_rows"}, or {"note"} with why there is no figure.

    >>> per_row_cost(None, 0, 1, 50)["note"]  # type: ignore[arg-type]
    "the source has only 50 rows, too few to tell the pipeline's time per row from Spark's fixed costs"
    """
    from magicpush_lab.measure import run_limited

    if source_rows < COST_MIN_ROWS:
        return {"note": f"the source has only {source_rows:,} rows, too few to tell the pipeline's time "
                        "per row from Spark's fixed costs"}
    big = min(sample_rows, source_rows)
    small = big // 5
    frames = tracer.frames()
    if source not in frames:
        return {"note": f"the kernel no longer holds the source DataFrame (event {source})"}
    built = {}
    for n in (small, big):
        with tracer.suspended():
            head = frames[source].limit(n)
        rebuilt = rebuild(sink, {source: head}, tracer)
        if not rebuilt.ok:
            return {"note": rebuilt.reason}
        built[n] = rebuilt.df
    deadline = time.monotonic() + time_limit
    runs: dict[int, list[float]] = {small: [], big: []}
    with tracer.suspended():
        for k, n in enumerate((small, small, big, small, big)):  # the first is a warm-up
            left = deadline - time.monotonic()
            seconds = run_limited(built[n], _noop_write(built[n]), left) if left > 0 else None  # type: ignore[arg-type]
            if seconds is None:
                return {"note": f"timing the pipeline on {big:,} rows took over {time_limit:g} s"}
            if k:
                runs[n].append(float(seconds))  # type: ignore[arg-type]
    return cost_from_runs(runs[small], runs[big], small, big)


def cost_from_runs(small_runs: list[float], big_runs: list[float], small: int, big: int) -> dict[str, Any]:
    """The time per added row from runs on `small` and `big` rows, or a note when the growth is
    within the runs' own spread.

    >>> cost_from_runs([1.0, 1.1], [2.0, 2.2], 10_000, 50_000)
    {'seconds_per_row': 2.5e-05, 'sample_rows': 50000, 'small_rows': 10000}
    >>> cost_from_runs([5.0, 7.0], [6.0, 8.5], 10_000, 50_000)["note"]
    "the pipeline's time per row could not be told apart from Spark's fixed costs (runs on 10,000 and 50,000 rows differed by 1 s, runs of one size by 2.5 s)"
    """
    growth = min(big_runs) - min(small_runs)
    spread = max(max(small_runs) - min(small_runs), max(big_runs) - min(big_runs))
    if growth <= spread:
        return {"note": f"the pipeline's time per row could not be told apart from Spark's fixed costs (runs on "
                        f"{small:,} and {big:,} rows differed by {growth:.2g} s, runs of one size by {spread:.2g} s)"}
    return {"seconds_per_row": round(growth / (big - small), 9), "sample_rows": big, "small_rows": small}


def _noop_write(df: Any) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        df.write.format("noop").mode("overwrite").save()
        return time.perf_counter() - start

    return run


def median(values: list[float]) -> float | None:
    """
    >>> median([3.0, 1.0, 2.0]), median([])
    (2.0, None)
    """
    return statistics.median(values) if values else None


def speedup(original: float | None, rewritten: float | None) -> float | None:
    """How many times faster the rewritten pipeline ran; None without both medians.

    >>> speedup(6.0, 2.0), speedup(None, 1.0), speedup(1.0, 0.0)
    (3.0, None, None)
    """
    if original is None or not rewritten:
        return None
    return round(original / rewritten, 3)


def time_both(original: Any, rewritten: Any, runs: int = DEFAULT_RUNS,
              time_limit: float = DEFAULT_TIME_LIMIT, compare: bool = True) -> dict[str, Any]:
    """Alternate `runs` noop writes of each DataFrame within `time_limit` seconds overall, then
    compare their outputs if time is left (without `compare`, when the late filter is pandas
    code after toPandas(), count the rows each hands to Python instead). The runtime route's
    answer.

    One untimed write of each comes first: the first job of a session pays for code
    generation and cold caches, which would count against whichever side ran first.
    """
    from magicpush_lab.measure import run_limited

    deadline = time.monotonic() + time_limit
    times: dict[str, list[float]] = {"original": [], "rewritten": []}
    notes: list[str] = []
    stopped = False
    for df in (original, rewritten):  # warm-up
        remaining = deadline - time.monotonic()
        if remaining <= 0 or run_limited(df, _noop_write(df), remaining) is None:
            stopped = True
            break
    for _ in range(runs if not stopped else 0):
        for side, df in (("original", original), ("rewritten", rewritten)):
            remaining = deadline - time.monotonic()
            seconds = run_limited(df, _noop_write(df), remaining) if remaining > 0 else None  # type: ignore[arg-type]
            if seconds is None:
                stopped = True
                break
            times[side].append(round(float(seconds), 4))  # type: ignore[arg-type]
        if stopped:
            break
    if stopped:
        notes.append(f"stopped at the {time_limit:g} s time limit after {len(times['original'])} original and "
                     f"{len(times['rewritten'])} rewritten timed run(s), one untimed warm-up run of each first")
    if stopped:
        equal, why = None, "outputs not compared: no time left"
    elif compare:
        equal, why = compare_outputs(original, rewritten, deadline - time.monotonic())
    else:
        equal, why = None, rows_into_python(original, rewritten, deadline - time.monotonic())
    notes.append(why)
    m_orig, m_new = median(times["original"]), median(times["rewritten"])
    return {
        "original_seconds": times["original"], "rewritten_seconds": times["rewritten"],
        "median_original": m_orig, "median_rewritten": m_new, "speedup": speedup(m_orig, m_new),
        "outputs_equal": equal, "note": "; ".join(notes),
    }


def rows_into_python(original: Any, rewritten: Any, time_limit: float) -> str:
    """The rows toPandas() moves into Python from each DataFrame: the rewritten one holds fewer by
    design (its filter keeps only rows the pandas filter may keep), so they are counted, not
    compared."""
    from magicpush_lab.measure import run_limited

    counts = run_limited(original, lambda: (original.count(), rewritten.count()), time_limit) \
        if time_limit > 0 else None
    if counts is None:
        return "rows into Python not counted: no time left"
    return (f"rows into Python: {counts[0]:,} → {counts[1]:,}; the pandas filter after toPandas() keeps the same"
            f" rows from both, so the outputs are not compared here")


def compare_outputs(a: Any, b: Any, time_limit: float, max_rows: int = COMPARE_MAX_ROWS) -> tuple[bool | None, str]:
    """(equal as bags?, what was done): counts first; with equal counts of at most `max_rows`
    rows, `exceptAll` both ways. None when not compared (too big, out of time, a column type
    Spark cannot compare)."""
    from magicpush_lab.measure import run_limited

    if time_limit <= 0:
        return None, "outputs not compared: no time left"
    deadline = time.monotonic() + time_limit
    counts = run_limited(a, lambda: (a.count(), b.count()), time_limit)
    if counts is None:
        return None, "outputs not compared: counting them ran out of time"
    if counts[0] != counts[1]:
        return False, f"outputs differ: {counts[0]:,} rows against {counts[1]:,}"
    if counts[0] > max_rows:
        return None, f"outputs not compared: {counts[0]:,} rows each, over {max_rows:,}"

    def same() -> tuple[int, int]:
        return int(a.exceptAll(b).isEmpty() and b.exceptAll(a).isEmpty()), 0

    try:
        result = run_limited(a, same, max(deadline - time.monotonic(), 0.001))
    except Exception as err:  # map columns, say: Spark cannot compare them as sets
        return None, f"outputs not compared: {type(err).__name__}: {str(err).strip().splitlines()[0][:200]}"
    if result is None:
        return None, "outputs not compared: comparing them ran out of time"
    # plain words first, the term after: equal as bags is the same rows, each as often, in any order
    if result[0]:
        return True, f"both outputs hold the same {counts[0]:,} rows, each as often, in any order (equal as bags)"
    return False, f"the outputs differ: {counts[0]:,} rows each, not the same ones (not equal as bags)"
