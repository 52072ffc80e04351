"""What stopped a filter on its way to a read, sorted into blocker kinds.

The engine says why it stopped in its refusals (`operator`, `reason`, and a `note` naming the
step's code, cell and line) and in free-text notes. Each is given a short, stable kind by the
first rule in RULES that matches it, so the benchmark can count, over the corpus, how many
pipelines each kind blocks; anything no rule knows is "other: <operator>: <first words>".
A new rule goes in RULES, above any broader rule it should win over.

>>> kind_of("GroupBy", "no candidate could be proved")
'aggregate: filter on its output'
>>> kind_of("LeftOuterJoin", "no candidate could be proved")
'outer join: filter on the null-supplying side'
>>> kind_of("Source", "<lambda>() runs above an outer join the predicate passed, on rows it may NULL-pad")
'python UDF above an outer join (NULL-padded rows)'
>>> kind_of("Project", "time budget used up")
'over budget'
>>> kind_of("Sample", "something new happened here today")
'other: Sample: something new happened here'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

_STEP = re.compile(r"`(?P<code>[^`]*)` \(cell \[(?P<cell>[^\]]*)\](?:, line (?P<line>\d+))?\)")


@dataclass(frozen=True)
class Blocker:
    kind: str
    operator: str
    reason: str
    step: str = ""  # the step's code, as the engine's note quotes it
    cell: str = ""  # the cell's prompt number, as the note gives it
    line: int | None = None

    @property
    def where(self) -> str:
        at = f"cell [{self.cell}]" if self.cell else ""
        if self.line is not None:
            at += f", line {self.line}"
        return f"{self.step} ({at})" if self.step else at


def _has(*words: str) -> Callable[[str, str], bool]:
    return lambda operator, reason: any(w in reason.lower() for w in words)


def _op(*names: str, reason: tuple[str, ...] = ()) -> Callable[[str, str], bool]:
    return lambda operator, text: operator in names and (not reason or any(w in text.lower() for w in reason))


def _udf_call(operator: str, reason: str) -> str:
    """The kind of a refusal inside a Python or pandas UDF, naming the call that stopped it."""
    call = re.search(r"\(([A-Za-z_][\w.]*)\)|`([A-Za-z_][\w.]*)\(", reason)
    name = (call.group(1) or call.group(2)) if call else ""
    return f"python UDF: call not modelled ({name})" if name else f"python UDF: {_first_words(reason)}"


# (matches(operator, reason), kind or kind(operator, reason)); the first match wins
RULES: list[tuple[Callable[[str, str], bool], Any]] = [
    (_has("time budget used up"), "over budget"),
    (_has("check failed:"), lambda o, r: f"check error: {r.split('check failed:')[1].split(':')[0].strip()}"),
    (_has("could not analyse"), lambda o, r: f"optimizer error: {_exception(r)}"),
    (_has("its own copy:"), lambda o, r: f"proved, not rewritten: its own copy refused ({_copy_reason(r)})"),
    (_has("inspected on its own", "is also inspected"),
     "proved, not rewritten: a DataFrame on the way is inspected on its own"),
    (_has("feeds other code"), "proved, not rewritten: a DataFrame on the way feeds other code"),
    (_has("cannot be rewritten"),
     lambda o, r: f"proved, not rewritten: {_first_words(r.split('cannot be rewritten:')[1])}"),
    (_has("may leave its integer type"), "integer arithmetic may overflow"),
    (_has("null-pad"), "python UDF above an outer join (NULL-padded rows)"),
    (_has("body of"), lambda o, r: f"pandas UDF body not analysed ({_first_words(r.split('not analysed:')[-1], 2)})"),
    (_has("nondetermin", "monotonically_increasing_id", "rand("), "nondeterministic column"),
    (_op("GroupedMap", "RowIterPipeline"), lambda o, r: f"pandas UDF ({o}): {_first_words(r)}"),
    (_has("udf"), _udf_call),
    (_op("GroupBy", "Pivot"), "aggregate: filter on its output"),
    (_op("Deduplicate"), "deduplicate: filter on a column outside the key"),
    (_op("CumAggr"), "window: filter on its output or across its partitions"),
    (_op("RowTransform"), "python UDF column: no candidate proved"),
    (_op("LeftOuterJoin", "RightOuterJoin", "FullOuterJoin"), "outer join: filter on the null-supplying side"),
    (_op("AntiJoin"), "anti join"),
    (_has("operator not analysed"), lambda o, r: f"operator not analysed: {o}"),
    (_op("Other"), lambda o, r: f"not translated: {_first_words(r)}"),
    (_has("not modelled", "cannot be modelled"),
     lambda o, r: f"not modelled at {o}: {_first_words(r.split(':')[-1])}"),
]


def _copy_reason(reason: str) -> str:
    """Why the pipeline's own copy was refused (rewrite/own_copy.py), without the names."""
    why = reason.split("its own copy:")[-1]
    for words in ("bound again", "runs more than once", "not a plain assignment", "inside a block",
                  "same statement", "receiver", "comes after the late filter", "different",
                  "does not read the copied steps by name", "holds a column of"):
        if words in why:
            return words
    return _first_words(why)


def _first_words(text: str, n: int = 4) -> str:
    words = re.sub(r"\s+", " ", text).strip().split(" ")
    return " ".join(words[:n]).rstrip(":,;.")


def _exception(text: str) -> str:
    found = re.search(r"\(([A-Za-z_]\w*(?:Error|Exception))", text) or re.search(r"([A-Za-z_]\w*(?:Error|Exception))",
                                                                                 text)
    return found.group(1) if found else _first_words(text, 3)


def kind_of(operator: str, reason: str) -> str:
    """The blocker kind of one refusal (module docstring)."""
    for matches, kind in RULES:
        if matches(operator, reason):
            return kind(operator, reason) if callable(kind) else kind
    return f"other: {operator}: {_first_words(reason)}"


def _located(kind: str, operator: str, reason: str, note: str) -> Blocker:
    step = _STEP.search(note or "")
    if step is None:
        return Blocker(kind, operator, reason)
    return Blocker(kind, operator, reason, step.group("code"), step.group("cell"),
                   int(step.group("line")) if step.group("line") else None)


# notes that say why a filter stopped without a refusal of their own
_NOTE_RULES = ("could not analyse", "source is also inspected", "cannot be rewritten", "not applied (it ")


def reports_a_stop(note: str) -> bool:
    """Whether an engine note, which no refusal carries, says why a filter stopped."""
    return any(w in note for w in _NOTE_RULES)


def blockers_of(optimized: Any, budget: float) -> list[Blocker]:
    """Every blocker of one optimization: its refusals, the notes that report a stop no
    refusal carries, an optimizer failure, and a run over its time budget."""
    found: list[Blocker] = []
    if optimized.error:
        found.append(Blocker(f"optimizer error: {_exception(optimized.error)}", "", optimized.error))
    refused_notes = set()
    for r in optimized.refusals:
        operator, reason, note = str(r.get("operator") or ""), str(r.get("reason") or ""), str(r.get("note") or "")
        refused_notes.add(note)
        found.append(_located(kind_of(operator, reason), operator, reason, note))
    for note in list(optimized.notes) + list(optimized.skipped):
        if note in refused_notes or not reports_a_stop(note):
            continue
        kind = "rewrite conflict" if note.startswith("not applied (it ") else kind_of("", note)
        found.append(_located(kind, "", note, note))
    if optimized.seconds > budget and not any(b.kind == "over budget" for b in found):
        found.append(Blocker("over budget", "", f"the optimizer took {optimized.seconds:.1f} s of {budget:g} s"))
    return _unique(found)


def _unique(blockers: list[Blocker]) -> list[Blocker]:
    seen, out = set(), []
    for b in blockers:
        key = (b.kind, b.step, b.cell, b.line)  # one per kind and step: the JSON has the engine's notes
        if key not in seen:
            seen.add(key)
            out.append(b)
    return out
