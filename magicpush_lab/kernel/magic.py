"""`%magicpush` and `%%magicpush`: the suggestions for what the notebook ran, from inside it.

    %magicpush [--no-measure] [--budget SECONDS] [--all]   show the suggestions
    %magicpush apply N [--together]                        apply suggestion N of the last table
    %magicpush --help
    %%magicpush [options]                                  run the cell, then optimize its pipeline

Applying happens in the notebook, not in the kernel: the kernel displays the cells to rewrite
under APPLY_MIME, and the JupyterLab extension rewrites them (each one undoable, and only if
it still holds the code the suggestion was made for). Elsewhere the display is the rewritten
code as text, to copy.

>>> parse("--all --budget 3").every, parse("--all --budget 3").budget
(True, 3.0)
>>> parse("apply 2").apply, parse("apply two").error
(2, "apply needs a suggestion number from the last table, e.g. '%magicpush apply 1'")
"""

from __future__ import annotations

import html
import shlex
import time
import uuid
from dataclasses import dataclass
from typing import Any

from magicpush_lab.budget import DEFAULT_SECONDS
from magicpush_lab.cellref import cell_ref
from magicpush_lab.kernel.report import render, render_error
from magicpush_lab.protocol import APPLY_MIME


HELP = """%magicpush: proved filters that can move to the pipeline's sources.

  %magicpush                    the suggestions for the longest pipeline run so far, measured
  %magicpush --no-measure       without counting rows on the session
  %magicpush --budget SECONDS   the optimizer's time budget (default {budget:g})
  %magicpush --all              every pipeline, not only the longest
  %magicpush apply N            rewrite the cells of suggestion N of the last table
  %magicpush apply N --together rewrite with all filters of suggestion N's pipeline, as proved together
  %%magicpush [options]         run the cell, then optimize the pipeline it ends in
  %magicpush --help             this text

Applying needs the MagicPush JupyterLab extension; elsewhere the rewritten cells are shown to copy.""".format(
    budget=DEFAULT_SECONDS)


@dataclass(frozen=True)
class Command:
    measure: bool = True
    budget: float = DEFAULT_SECONDS
    every: bool = False
    apply: int | None = None  # 1-based suggestion number
    together: bool = False
    help: bool = False
    error: str | None = None


def parse(line: str) -> Command:
    """The options of a `%magicpush` line; `error` says what is wrong with it."""
    try:
        args = shlex.split(line)
    except ValueError as err:
        return Command(error=f"cannot read the options: {err}")
    found: dict[str, Any] = {}
    while args:
        a = args.pop(0)
        if a in ("--help", "-h"):
            found["help"] = True
        elif a == "--no-measure":
            found["measure"] = False
        elif a == "--all":
            found["every"] = True
        elif a == "--together":
            found["together"] = True
        elif a == "--budget":
            try:
                found["budget"] = float(args.pop(0))
            except (IndexError, ValueError):
                return Command(error="--budget needs a number of seconds")
            if not 0 < found["budget"] <= 600:
                return Command(error="--budget must be between 0 and 600 seconds")
        elif a == "apply":
            try:
                found["apply"] = int(args.pop(0))
            except (IndexError, ValueError):
                return Command(error="apply needs a suggestion number from the last table, e.g. '%magicpush apply 1'")
        else:
            return Command(error=f"unknown option {a!r} (use --no-measure, --budget SECONDS, --all, apply N, --help)")
    return Command(**found)


def help_bundle() -> dict[str, str]:
    return {"text/plain": HELP, "text/html": f"<pre>{html.escape(HELP)}</pre>"}


def apply_bundle(result: Any, number: int, together: bool, cell_ids: dict[int, str | None],
                 prefixes: dict[int, tuple[str, str]] | None = None) -> dict[str, Any]:
    """The display that asks the notebook to rewrite suggestion `number`'s cells (1-based).

    cell_ids: the id of the notebook cell behind each index of the suggestion's cells (None:
    find it by its code, which must then be in one cell only). prefixes: for a cell whose
    notebook cell holds more than the traced code (the `%%magicpush` line in front), that text
    and the whole notebook cell.
    """
    suggestions = result.suggestions
    if not 1 <= number <= len(suggestions):
        shown = f"1 to {len(suggestions)}" if suggestions else "none: run %magicpush first"
        return render_error(f"there is no suggestion {number} (the last table has {shown})")
    chosen = suggestions[number - 1]
    changes, what = chosen.cells, f"suggestion {number}: filter {chosen.source} with {chosen.predicate}"
    joint = next((t for t in result.together if t.pipeline == chosen.pipeline), None)
    if together:
        if joint is None:
            return render_error(f"suggestion {number}'s pipeline has no other filter; use '%magicpush apply {number}'")
        if joint.no_benefit:
            return render_error(f"pipeline {joint.pipeline}'s filters together hold {', '.join(joint.no_benefit)}, "
                                f"which removes no rows: apply the filter you want alone, '%magicpush apply N'")
        changes, what = joint.cells, f"the {joint.suggestions} filters of pipeline {joint.pipeline}, together"
    if not changes:
        return render_error(f"suggestion {number} has no cell that can be rewritten")
    payload = {
        "id": uuid.uuid4().hex,  # the notebook records it, so a saved output never applies twice
        # seconds since the epoch: an output reopened later asks again instead of applying
        "created": time.time(),
        "what": what,
        "cells": [_notebook_cell(c, cell_ids.get(c.index), (prefixes or {}).get(c.index)) for c in changes],
    }
    text = [f"MagicPush: to apply {what}, replace these cells' code:"]
    for change, c in zip(changes, payload["cells"]):
        text += ["", f"--- {cell_ref(change.index, change.execution_count)} ---", c["rewritten"]]
    if joint is not None and not together and not joint.no_benefit:
        text += ["", f"(pipeline {joint.pipeline} has {joint.suggestions} filters: "
                     f"'%magicpush apply {number} --together' applies them as proved together)"]
    return {APPLY_MIME: payload, "text/plain": "\n".join(text)}


def _notebook_cell(change: Any, cell_id: str | None, prefixed: tuple[str, str] | None) -> dict[str, Any]:
    if prefixed is None:
        return {"cell_id": cell_id, "original": change.original, "rewritten": change.rewritten}
    prefix, whole = prefixed
    rewritten = prefix + change.rewritten
    if change.original.endswith("\n") and not whole.endswith("\n"):
        rewritten = rewritten[:-1] if rewritten.endswith("\n") else rewritten
    return {"cell_id": cell_id, "original": whole, "rewritten": rewritten}


def show(result: Any) -> dict[str, str]:
    """`render`, with the numbers `apply N` refers to."""
    shown = render(result)
    if result.suggestions:
        hint = "Apply one with '%magicpush apply N' (N counts the table's rows from 1)."
        shown = {"text/plain": shown["text/plain"] + "\n" + hint,
                 "text/html": shown["text/html"] + f"<p>{html.escape(hint)}</p>"}
    return shown


__all__ = ["Command", "apply_bundle", "help_bundle", "parse", "render_error", "show"]
