"""The engine's front door: trace -> IR -> search/verify -> rewrite -> suggestions.

Measurement is not done here: it needs the live SparkSession, which lives in
the notebook's kernel (see `magicpush_lab.measure`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from magicpush_lab.capture.trace import Trace
from magicpush_lab.suggestion import Suggestion


@dataclass(frozen=True)
class OptimizeResult:
    suggestions: tuple[Suggestion, ...]
    optimizer_seconds: float
    notes: tuple[str, ...] = ()  # why something was not pushed, for display

    def to_json(self, notebook: str | None = None) -> dict[str, Any]:
        return {
            "notebook": notebook,
            "suggestions": [s.to_json() for s in self.suggestions],
            "optimizer_seconds": round(self.optimizer_seconds, 4),
            "notes": list(self.notes),
        }


def optimize_trace(trace: Trace, notebook_cells: Sequence[str] | None = None,
                   *, time_budget: float = 10.0) -> OptimizeResult:
    """Find proved pushdowns for the longest pipeline of `trace`.

    notebook_cells: the notebook's cell sources in notebook order (markdown cells
    included, so indices match the notebook); a suggestion's cell indices refer to
    it. When None, cells are numbered in the order the trace first saw them.
    """
    raise NotImplementedError("engine under construction")
