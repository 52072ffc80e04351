"""What the user reads about what did not move: the notes, and the walk's refusals as JSON.

One note per step that stopped a filter, naming the user's code and cell of that step, each
reason it gave and what its Python UDFs call that the model reads as unknown values; the
refusals as JSON, each carrying the note about its step (a view says each blocking step once);
and the words for what was proved but could not be written in the user's code, or was written
elsewhere than at its source. Every sentence of the result's `notes` is made here.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any, Sequence

from magicpush_lab.capture.trace import Inspection, Trace
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown.records import AlreadyFiltered, LeftBehind, Pushed, Refusal
from magicpush_lab.symbolic.python_udf import black_box_places
from magicpush_lab.translate.pandas_tail import PandasTail

NOTHING_TRACED = "no PySpark DataFrame was traced"
NO_FILTER = "the pipeline has no filter to push"
NOTHING_PUSHED = "nothing could be pushed"  # the walk moved no filter and said nothing
PLAN_UNREAD = "the kernel could not read its plan (the tracer's warnings say why)"


def refusal_notes(trace: Trace, refusals: Sequence[Refusal], plan: P.Plan, pipeline: str
                  ) -> tuple[list[str], list[dict[str, Any]]]:
    """One note per step that stopped a filter (step_notes), and each refusal as JSON
    (refusal_json) carrying the note about its step."""
    by_step = _notes_by_step(trace, refusals, plan)
    return list(by_step.values()), [refusal_json(r, pipeline, by_step[_step_key(r)]) for r in refusals]


def step_notes(trace: Trace, refusals: Sequence[Refusal], plan: P.Plan | None = None) -> list[str]:
    """One note per step that stopped a filter, in the order they were met: its user code and
    cell, and each distinct reason it gave (ten late filters stopped by one UDF are one note),
    then what the step's Python UDFs do that the model reads as unknown values (`plan`'s)."""
    return list(_notes_by_step(trace, refusals, plan).values())


def _step_key(r: Refusal) -> object:
    return r.event if r.event is not None else (r.operator, r.reason)


def _notes_by_step(trace: Trace, refusals: Sequence[Refusal], plan: P.Plan | None) -> dict[object, str]:
    """step_notes, keyed by the step (`_step_key`): a refusal's JSON carries its step's note,
    so that a view shows each reason once."""
    steps: dict[object, list[Refusal]] = {}
    for r in refusals:
        steps.setdefault(_step_key(r), []).append(r)
    notes = {}
    for key, found in steps.items():
        shown = next((r for r in found if r.candidate), found[0])  # the one with a counterexample
        reasons = tuple(dict.fromkeys(r.reason for r in found))
        boxes = black_boxes(trace, plan, found[0].event) if plan is not None else []
        note = describe_refusal(shown, step_text(trace, found[0].event), reasons)
        notes[key] = note + "".join(f"; {b}" for b in boxes)
    return notes


def black_boxes(trace: Trace, plan: P.Plan, eid: int | None) -> list[str]:
    """What the Python UDFs of step `eid` call that the model does not read (it reads each as an
    unknown value of its arguments), each with its function, cell and line, e.g.
    "`d.isocalendar()` in `is_weekend` (cell [2], line 4): not modelled"."""
    if eid is None:
        return []
    udfs: dict[str, X.PyUdf] = {}
    for node in P.nodes(plan):
        if getattr(node, "origin", None) == eid:
            for e in P.expressions(node):
                for x in X.walk(e):
                    if isinstance(x, X.PyUdf) and x.kind == "python" and x.source:
                        udfs.setdefault(x.name, x)
    found = []
    for u in udfs.values():
        try:
            calls, unread = black_box_places(u.source or "", tuple(X.dtype_of(a) for a in u.args))
        except Exception:  # noqa: BLE001 - a note's detail is never worth the pipeline's notes
            continue
        if unread is not None:
            field = _ROUND_TRIP_FIELD.fullmatch(u.name) if "_step0" in (u.source or "") else None
            what = f"field `{field.group(1)}` of the RDD round trip" if field else f"`{u.shown_name}`"
            found.append(f"{what} is not read ({unread})")
        # each black box in the function that holds it: a helper the UDF calls, or the user's
        # function or lambda of an RDD round trip (whose UDFs, one per field, are synthesized)
        for text, owner, line, lambda_code in calls:
            if lambda_code is not None:
                found.append(f"`{text}` in a lambda{_lambda_line(trace, lambda_code, line)}: not modelled")
            else:
                found.append(f"`{text}` in `{owner}`{_udf_line(trace, owner, line)}: not modelled")
    return list(dict.fromkeys(found))  # the fields of one round trip share its functions


def _udf_line(trace: Trace, name: str, line: int) -> str:
    """" (cell [N], line L)" for line `line` of the function `name` (1: its `def`), from the
    last traced cell that defines it; "" when no cell does."""
    for cell in reversed(trace.cells):
        for i, text in enumerate(cell.source.splitlines()):
            if text.lstrip().startswith(f"def {name}("):
                return f" (cell [{cell.execution_count}], line {i + line})"
    return ""


_ROUND_TRIP_FIELD = re.compile(r"rdd\d+_(.+)")  # the UDF translate/rdd.py writes for one field


def _lambda_line(trace: Trace, code: str, line: int) -> str:
    """" (cell [N], line L)" for line `line` of the lambda whose code is `code` (as ast.unparse
    writes it), from the last traced cell that holds it; "" when none does."""
    for cell in reversed(trace.cells):
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:  # a cell with magics: not searched
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and ast.unparse(node) == code:
                return f" (cell [{cell.execution_count}], line {node.lineno + line - 1})"
    return ""


MAX_CODE = 80  # characters of a step's code in a note


def step_text(trace: Trace, eid: int | None) -> str | None:
    """How a note names a traced step: its code, cell and line, e.g.
    "`.withColumn("band", band_udf("amount"))` (cell [4], line 2)"; None when not traced."""
    event = trace.event(eid) if eid is not None else None
    if event is None or event.site is None:
        return None
    site = event.site
    where = f"cell [{site.execution_count}], line {site.lineno}"
    code = trace.code_at(site)
    if not code:
        return f"({where})"
    code = " ".join(code.split())
    call = code.rfind(f".{event.op.rsplit('.', 1)[-1]}(")
    name = trace.variable_of(eid)
    if len(code) > MAX_CODE and name is not None and not event.inputs:
        code = name  # a source made by long code: the user knows it by its name
    elif len(code) > MAX_CODE and call > 0:  # a long chain: the step's own call
        code = "…" + code[call:]
    if len(code) > MAX_CODE:
        code = code[:MAX_CODE - 1] + "…"
    return f"`{code}` ({where})"


def proved_text(pushed: Pushed) -> str:
    """What was proved for a source, in a note: each read's predicate when the reads differ
    (the source's own predicate is then their disjunction, TRUE when one read needs every row).

    >>> s = P.Source("t", (X.Col("a", 1),), 2)
    >>> a = X.Cmp(">", X.Col("a", 1), X.Lit(3, "int"))
    >>> from dataclasses import replace
    >>> one = Pushed(s, a, (), "equivalent", P.Filter(s, a), 5, 0)
    >>> proved_text(replace(one, predicate=X.TRUE, branches=(one, replace(one, predicate=X.TRUE))))
    'a > 3 on one read of the source, every row on another'
    """
    if pushed.predicate != X.TRUE or not pushed.branches:
        return str(pushed.predicate)
    reads = ["every row" if b.predicate == X.TRUE else str(b.predicate) for b in pushed.branches]
    return f"{reads[0]} on one read of the source, " + ", ".join(f"{r} on another" for r in reads[1:])


def in_pipeline(name: str, note: str) -> str:
    """A note about one of several pipelines, naming it.

    >>> in_pipeline("late", NOTHING_PUSHED)
    'pipeline ending in late: nothing could be pushed'
    """
    return f"pipeline ending in {name}: {note}"


def failed(err: Exception) -> str:
    """What the engine met where it gave up on a pipeline: the error's kind and first line.

    >>> failed(ValueError("no plan for event 3\\nmore"))
    'the optimizer could not analyse it (ValueError: no plan for event 3)'
    """
    text = str(err).strip().splitlines()
    return f"the optimizer could not analyse it ({type(err).__name__}: {text[0][:200] if text else ''})"


def pandas_failed(call: Inspection, err: Exception) -> str:
    """As `failed`, for the pandas code after a `toPandas()` call, named by its cell."""
    cell = call.site.execution_count if call.site else "?"
    return f"pandas code after toPandas() in cell [{cell}]: {failed(err)}"


def not_a_tail(why: object) -> str:
    """Why the pandas code after a `toPandas()` call is not read as a filter."""
    return f"pandas code after toPandas(): {why}"


def on_pandas_filter(tail: PandasTail, note: str) -> str:
    """A note about the pandas filter after a `toPandas()` call, naming its code and place."""
    return f"pandas filter `{tail.filter_statement.code}` ({tail.filter_statement.where}): {note}"


def before_collecting_instead(note: str) -> str:
    """A note of the walk from a pandas filter, when its filter goes right before `toPandas()`."""
    return f"{note}; the filter goes right before toPandas() instead"


def collect_not_rewritten(predicate: object, err: Exception) -> str:
    """A predicate proved for the DataFrame `toPandas()` collects, whose call was not rewritten."""
    return f"{predicate}: proved, but the toPandas() call cannot be rewritten: {err}"


def not_rewritten(proved: object, err: Exception) -> str:
    """A proved predicate (`proved_text`) whose place in the cells was not found or not written."""
    return f"{proved}: proved, but the cells cannot be rewritten: {err}"


def not_pyspark(predicate: object, err: Exception) -> str:
    """A proved predicate with no PySpark form (rewrite/pyspark_column.py)."""
    return f"{predicate}: proved, but it cannot be written as PySpark code: {err}"


def on_the_way(predicate: object, source: str, why: str, read: str) -> str:
    """A filter proved for `source` that goes on the pipeline's own read of `read` instead.

    >>> on_the_way("amount > 9", "orders", "the source is also inspected on its own", "joined")
    "amount > 9: proved for orders, but the source is also inspected on its own; suggested on the pipeline's own read of joined instead"
    """
    return (f"{predicate}: proved for {source}, but {why}; "
            f"suggested on the pipeline's own read of {read} instead")


def refusal_json(r: Refusal, pipeline: str, note: str | None = None) -> dict[str, Any]:
    """A refusal for the JSON result: counterexample rows with plain JSON values, the trace
    event of the step that stopped the filter, and the note that describes that step (one of
    the result's notes: a view shows it once, with the refusal).

    >>> refusal_json(Refusal("GroupBy", "no candidate", "x > 1", {"input 1": [{"x": 1.5, "d": object}]}), "out")
    {'pipeline': 'out', 'operator': 'GroupBy', 'reason': 'no candidate', 'candidate': 'x > 1', 'counterexample': {'input 1': [{'x': 1.5, 'd': "<class 'object'>"}]}, 'event': None, 'note': None}
    """
    def plain(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)  # JSON has no NaN or infinity
        return v if v is None or isinstance(v, (bool, int, float, str)) else str(v)

    tables = {str(name): [{str(k): plain(v) for k, v in row.items()} for row in rows]
              for name, rows in (r.counterexample or {}).items()}
    return {"pipeline": pipeline, "operator": r.operator, "reason": r.reason, "candidate": r.candidate,
            "counterexample": tables, "event": r.event, "note": note}


def already_json(trace: Trace, found: Sequence[AlreadyFiltered], pipeline: str,
                 code: Any = str) -> list[dict[str, Any]]:
    """Each filter of the pipeline's own that already keeps only the rows a pushed predicate
    keeps, once per filter: its step, the predicate (`code` writes it as the user would) and
    the note that says so. A filter applied at a source on an earlier run is reported here,
    not offered again.

    >>> t = Trace(events=[])
    >>> a = X.Cmp(">", X.Col("a", 1, "int"), X.Lit(9, "int"))
    >>> already_json(t, [AlreadyFiltered(None, a, a), AlreadyFiltered(None, a, a)], "out")[0]["note"]
    'already in place: a filter keeps only rows where a > 9, so nothing more moves below it'
    """
    out: dict[object, dict[str, Any]] = {}
    for a in found:
        key = a.event if a.event is not None else a.condition
        if key in out:
            continue
        try:
            written = code(a.predicate)
        except ValueError:  # no PySpark form: the IR's own text
            written = str(a.predicate)
        step = step_text(trace, a.event)
        note = (f"already in place: {step or 'a filter'} keeps only rows where {written}, "
                "so nothing more moves below it")
        out[key] = {"pipeline": pipeline, "event": a.event, "predicate": written, "step": step, "note": note}
    return list(out.values())


def left_behind_json(trace: Trace, found: Sequence[LeftBehind], pipeline: str,
                     code: Any = str) -> list[dict[str, Any]]:
    """Each conjunct that stays in its late filter while others moved, once: the conjunct
    (`code` writes it as the user would), the step that stopped it, and a note saying so.

    >>> t = Trace(events=[])
    >>> c = X.Cmp(">", X.Col("h", 1, "int"), X.Lit(3, "int"))
    >>> left_behind_json(t, [LeftBehind(c, Refusal("GroupBy", "no candidate could be proved"))], "out")[0]["note"]
    '`h > 3` stays in the late filter: GroupBy: no filter before this step was proved to give the same result (no candidate could be proved)'
    """
    out: dict[X.Expr, dict[str, Any]] = {}
    for b in found:
        if b.conjunct in out:
            continue
        try:
            written = code(b.conjunct)
        except ValueError:  # no PySpark form: the IR's own text
            written = str(b.conjunct)
        step = step_text(trace, b.refusal.event)
        note = f"`{written}` stays in the late filter: {describe_refusal(b.refusal, step)}"
        out[b.conjunct] = {"pipeline": pipeline, "conjunct": written, "operator": b.refusal.operator,
                           "event": b.refusal.event, "step": step, "reason": b.refusal.reason, "note": note}
    return list(out.values())


def describe_refusal(r: Refusal, step: str | None = None, reasons: Sequence[str] = ()) -> str:
    """A refusal as one line of the notes: the operator, the user's code of that step when
    known, and every reason the step gave (`reasons`; else the refusal's own).

    >>> describe_refusal(Refusal("GroupBy", "no candidate could be proved"), "`df.groupBy('k')` (cell [4], line 2)")
    "GroupBy `df.groupBy('k')` (cell [4], line 2): no filter before this step was proved to give the same result (no candidate could be proved)"
    """
    text = f"{r.operator}{' ' + step if step else ''}: {'; '.join(_plain(x) for x in reasons or (r.reason,))}"
    if r.candidate and r.counterexample:
        text += f" (`{r.candidate}` at the source would change the result on {_tables(r.counterexample)})"
    elif r.candidate:
        text += f" (`{r.candidate}`)"
    return text


#: the walk's reasons that are terms of the proof, in plain words (the term follows them)
PLAIN_REASONS = {"no candidate could be proved": "no filter before this step was proved to give the same result"}


def _plain(reason: str) -> str:
    return f"{PLAIN_REASONS[reason]} ({reason})" if reason in PLAIN_REASONS else reason


def _tables(tables: dict[str, list[dict]]) -> str:
    """Counterexample tables in one line; runs of equal rows (a limit's k copies) counted once.

    >>> _tables({"input 1": [{"x": 1}] * 3 + [{"x": None}]})
    "input 1: 3 x {'x': 1}, {'x': None}"
    """
    parts = []
    for name, rows in tables.items():
        runs: list[list] = []
        for row in rows:
            if runs and runs[-1][1] == row:
                runs[-1][0] += 1
            else:
                runs.append([1, row])
        shown = ", ".join(f"{n} x {row}" if n > 1 else str(row) for n, row in runs)
        parts.append(f"{name}: {shown or 'empty'}")
    return "; ".join(parts)
