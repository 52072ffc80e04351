"""The engine as this benchmark uses it, in one place: the kernel extension's tracer, the
optimizer's entry point and the CLI's way of turning a result into rewritten cells. Only these
public entry points are used (imported inside the functions), so a change of the engine's
insides needs no change here, and a change of them needs one only here."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator


@dataclass
class Optimized:
    """What the optimizer made of one traced notebook, in plain values."""

    seconds: float = 0.0
    changes: dict[int, str] = field(default_factory=dict)  # notebook cell index -> rewritten source
    suggestions: list[dict] = field(default_factory=list)  # {source, predicate, cells}
    skipped: list[str] = field(default_factory=list)  # rewrites cell_changes could not apply
    refusals: list[dict] = field(default_factory=list)  # {operator, reason, event, note, candidate}
    notes: list[str] = field(default_factory=list)
    error: str = ""  # the optimizer raised (its type and first line)


@contextmanager
def tracing(ip: Any) -> Iterator[Any]:
    """The kernel extension's tracer loaded into an IPython shell for the block; yields it."""
    from magicpush_lab.kernel.extension import load, unload

    tracer = load(ip)
    try:
        yield tracer
    finally:
        unload(ip)


def optimize(trace: Any, cells: list[str], ids: list[str], budget: float) -> Optimized:
    """Run the optimizer on a trace of the notebook `cells` (markdown cells included, so the
    result's cell indices are notebook indices) and read its result; timed from the call."""
    from magicpush_lab.cli import cell_changes
    from magicpush_lab.pipeline import optimize_trace

    started = time.monotonic()
    try:
        result = optimize_trace(trace, cells, cell_ids=ids, time_budget=budget)
    except Exception as err:
        text = str(err).strip().splitlines()
        return Optimized(seconds=time.monotonic() - started,
                         error=f"{type(err).__name__}: {text[0][:200] if text else ''}")
    seconds = time.monotonic() - started
    changes, skipped = cell_changes(result)
    return Optimized(
        seconds=seconds, changes=changes, skipped=skipped,
        suggestions=[{"source": str(getattr(s, "source", "")), "predicate": str(getattr(s, "predicate", "")),
                      "kind": str(getattr(s, "kind", "")), "cells": [c.index for c in getattr(s, "cells", ())]}
                     for s in result.suggestions],
        refusals=[{k: r.get(k) for k in ("operator", "reason", "event", "note", "candidate")}
                  for r in result.refusals],
        notes=list(result.notes))
