"""Optimize, then measure: the one sequence every face of MagicPush Lab runs.

The sidebar's routes (server/routes.py), `%magicpush` (kernel/magic.py), the CLI (cli.py) and
the server's replay route all go through here, so that for the same notebook they suggest the
same predicates, ranked the same way. What differs between them is only where the notebook's
DataFrames live, given as a *measurer*: a function from measure requests to one measurement
per request (the kernel's `measure_in_kernel`, a replayed kernel's `Replay.measure`, or the
server's client of the notebook's kernel, which is asynchronous and uses the two pure halves,
`measure_requests` and `apply_measurements`, around its own await).

>>> from magicpush_lab.suggestion import Suggestion
>>> s = Suggestion("df", "F.col('v') > 1", "equivalent", (), (), 0, {})
>>> measure_requests([s], time_limit=5)
[{'source_event': 0, 'predicate_ir': {}, 'time_limit': 5}]
>>> got = apply_measurements([s, s], [{"rows_before": 1000, "rows_after": 4, "estimated": False},
...                                   {"error": "no session"}])
>>> got.suggestions[0].row_reduction, got.suggestions[1].rows_before, got.errors
(0.996, None, ("could not measure the filter on df (F.col('v') > 1): no session",))
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Collection, Sequence

from magicpush_lab.budget import Budget
from magicpush_lab.capture.trace import Trace
from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.suggestion import OptimizeResult, Suggestion, by_value, rank_by_rows_kept, removes_nothing

#: measure requests -> one measurement (or {"error": ...}) per request, in order
Measurer = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
#: runs the optimizer (a function of no arguments) where the face wants it run: in a worker
#: thread the server shares between requests, or right here
Runner = Callable[[Callable[[], OptimizeResult]], OptimizeResult]


@dataclass(frozen=True)
class Measured:
    suggestions: tuple[Suggestion, ...]
    errors: tuple[str, ...]


def optimize_and_measure(trace: Trace | Callable[[], Trace], cells: Sequence[str] | None, budget: Budget,
                         measurer: Measurer | None, *, cell_ids: Sequence[str | None] | None = None,
                         all_pipelines: bool = False, only_sinks: Collection[int] | None = None,
                         time_limit: float | None = None, sample_fraction: float | None = None,
                         run: Runner | None = None) -> OptimizeResult:
    """Proved suggestions for the trace, each measured (and ranked among its alternatives) by
    `measurer` when one is given; why a suggestion has no row counts is in `measure_errors`.
    `trace` may be a function that reads it: then reading it counts against the budget."""
    def optimize() -> OptimizeResult:
        budget.restart()  # the user's budget is for searching, not for waiting in a queue
        read = trace() if callable(trace) else trace
        return optimize_trace(read, cells, cell_ids=cell_ids, all_pipelines=all_pipelines,
                              only_sinks=only_sinks, budget=budget)

    result = run(optimize) if run is not None else optimize()
    if measurer is None or not result.suggestions:
        return result
    requests = measure_requests(result.suggestions, time_limit, sample_fraction)
    try:
        measurements = measurer(requests)
    except Exception as err:  # the kernel died or would not answer: the suggestions stand, unmeasured
        return replace(result, measure_errors=result.measure_errors + (f"not measured: {err}",))
    return with_measurements(result, measurements)


def with_measurements(result: OptimizeResult, measurements: Sequence[Any]) -> OptimizeResult:
    """The result with its suggestions measured, the most valuable first (suggestion.by_value);
    failures in `measure_errors`. A suggestion counted to remove none of its read's rows stays,
    last, with a note saying it has no benefit; a joint rewrite holding it is marked, so that
    no face applies it in bulk.

    >>> from magicpush_lab.suggestion import Together
    >>> s = Suggestion("df", "v > 1", "superset", (), (), 0, {}, pipeline="out")
    >>> r = OptimizeResult((s, replace(s, source="dg", source_event=1)), 0.1, together=(Together("out", "superset", (), 2),))
    >>> got = with_measurements(r, [{"rows_before": 10, "rows_after": 10}, {"rows_before": 10, "rows_after": 3}])
    >>> [x.source for x in got.suggestions], got.together[0].no_benefit
    (['dg', 'df'], ('v > 1 on df',))
    """
    measured = apply_measurements(result.suggestions, measurements)
    ranked = by_value(measured.suggestions)
    worthless = [s for s in ranked if removes_nothing(s)]
    together = tuple(replace(t, no_benefit=tuple(_label(s) for s in worthless if s.pipeline == t.pipeline))
                     for t in result.together)
    return replace(result, suggestions=ranked, together=together,
                   notes=result.notes + tuple(_no_benefit_note(s) for s in worthless),
                   measure_errors=result.measure_errors + measured.errors)


def _label(s: Suggestion) -> str:
    return f"{s.predicate} on {s.source}"


def _no_benefit_note(s: Suggestion) -> str:
    return (f"no benefit: {_label(s)} is proved, but on the data it keeps every one of the "
            f"{s.rows_before:,} rows its read hands on now; it is not applied in bulk")


def measure_requests(suggestions: Sequence[Suggestion], time_limit: float | None = None,
                     sample_fraction: float | None = None) -> list[dict[str, Any]]:
    """What the kernel is asked to count for each suggestion (kernel/bundles.measure_in_kernel):
    the source and predicate, the alternatives to rank on a sample of the source, and the
    limits: `time_limit` seconds for the exact counts, then a `sample_fraction` of the rows."""
    requests = []
    for s in suggestions:
        request: dict[str, Any] = {"source_event": s.source_event, "predicate_ir": s.predicate_ir}
        if s.source_event < 0:  # a table read inside SQL text has no DataFrame: read it by name
            request["source_table"] = s.source
        if s.sink_event is not None:  # the kernel times the pipeline's work per row on a sample
            request["sink_event"] = s.sink_event
        if s.alternatives:
            request["alternatives"] = [a.predicate_ir for a in s.alternatives]
        if time_limit is not None:
            request["time_limit"] = time_limit
        if sample_fraction is not None:
            request["sample_fraction"] = sample_fraction
        requests.append(request)
    return requests


def apply_measurements(suggestions: Sequence[Suggestion], measurements: Sequence[Any]) -> Measured:
    """Attach the kernel's measurements to the suggestions (ranked among their alternatives when
    the kernel ranked them); a failed or malformed measurement leaves its suggestion unmeasured
    and says why."""
    out: list[Suggestion] = []
    errors: list[str] = []
    if len(measurements) != len(suggestions):
        errors.append(f"expected {len(suggestions)} measurement(s) from the kernel, got {len(measurements)}")
    for i, suggestion in enumerate(suggestions):
        m = measurements[i] if i < len(measurements) else {"error": "no measurement"}
        label = f"could not measure the filter on {suggestion.source} ({suggestion.predicate})"
        if not isinstance(m, dict):
            errors.append(f"{label}: malformed measurement {m!r:.100}")
            out.append(suggestion)
            continue
        suggestion = _ranked(suggestion, m)
        if isinstance(m.get("scan_filters"), dict):
            suggestion = suggestion.with_scan_filters(m["scan_filters"])
        if "error" in m:
            errors.append(f"{label}: {m['error']}")
            out.append(suggestion)
            continue
        before, after = m.get("rows_before"), m.get("rows_after")
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (before, after)):
            errors.append(f"{label}: malformed measurement (row counts must be integers)")
            out.append(suggestion)
            continue
        measured = suggestion.measured(before, after, bool(m.get("estimated", False)))
        out.append(measured.with_time_saved(m["cost"]) if isinstance(m.get("cost"), dict) else measured)
    return Measured(tuple(out), tuple(errors))


def _ranked(s: Suggestion, m: dict[str, Any]) -> Suggestion:
    """`s` with the option the kernel found to keep the fewest rows in its place; the counts
    are that option's."""
    ranking = m.get("ranking")
    if isinstance(ranking, dict) and isinstance(ranking.get("rows_kept"), list):
        return rank_by_rows_kept(s, ranking["rows_kept"], f"the first {ranking.get('sample_rows', 0):,} rows")
    return s


@dataclass(frozen=True)
class Replayed:
    """A saved notebook replayed, optimized and measured: the result, and the document (with
    its cells as they were replayed) for writing the rewrite."""

    result: OptimizeResult
    document: Any


def replay_and_optimize(path: Path, budget: Budget, *, timeout: float, measure: bool = True,
                        all_pipelines: bool = False, kernel_name: str = "python3",
                        progress: Callable[[str], None] | None = None, run: Runner | None = None,
                        deadline: float | None = None) -> Replayed:
    """Replay the notebook or percent script at `path` in a fresh kernel with tracing, optimize
    its trace and measure on that kernel (the CLI). Raises driver.replay.ReplayError for a
    failing cell (or one past `timeout`, or the replay past `deadline` seconds), ValueError/
    OSError for a file that is not a notebook, RuntimeError when no kernel starts. The file is
    only read. (The server replays in a kernel of its own kernel manager, with
    driver.replay.KernelReplay, and optimizes with `optimize_replayed`.)"""
    from magicpush_lab.driver.notebook import read_document
    from magicpush_lab.driver.replay import Replay

    read_document(path)  # not notebook JSON, unreadable: fail before starting a kernel
    say = progress or (lambda _: None)
    with Replay(path, timeout=timeout, kernel_name=kernel_name, progress=say, deadline=deadline) as replay:
        say(f"{path.name}: optimizing ({len(replay.trace.events)} traced calls)")
        result = optimize_replayed(replay, budget, _announced(replay.measure, path, say) if measure else None,
                                   all_pipelines=all_pipelines, run=run)
        return Replayed(result, replay.document)


def optimize_replayed(replay: Any, budget: Budget, measurer: Measurer | None, *, all_pipelines: bool = False,
                      run: Runner | None = None) -> OptimizeResult:
    """Optimize a replayed notebook's trace and measure on its kernel: `replay` has the `trace`,
    the `document` and the `notes` on the order its cells ran in (driver.replay's `Replay` and
    `KernelReplay` both do), which are part of what the suggestions were computed on."""
    result = optimize_and_measure(replay.trace, replay.document.sources, budget, measurer,
                                  cell_ids=replay.document.ids, all_pipelines=all_pipelines, run=run)
    if replay.notes:
        result = replace(result, notes=tuple(replay.notes) + tuple(result.notes))
    return result


def _announced(measurer: Measurer, path: Path, say: Callable[[str], None]) -> Measurer:
    def measure(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        say(f"{path.name}: measuring {len(requests)} suggestion(s)")
        return measurer(requests)

    return measure
