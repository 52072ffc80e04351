"""python -m benchmarks.folds RUN.json: the table of the fold families, one row per family.

The families are the 26 stateful aggregations of the public Pusharoo benchmark set, each
written once in PySpark in a style users write (corpus/<name>/, in the reach corpus's format:
benchmarks/reach/README.md). They run through the reach benchmark:

    python -m benchmarks.reach --corpus benchmarks/folds/corpus --json RUN.json
    python -m benchmarks.reach --corpus benchmarks/folds/corpus --check all     # each hand optimum sound?

and this prints, from the run's JSON and the corpus's expected.toml, each family's style, what
the engine pushed (its kind and predicate) beside the hand-derived best, whether the rewrite
kept the output, the rows the read handed on (original, engine, hand optimum), the optimizer's
time and, when nothing moved, the first blocker; then the count of families handled.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

from benchmarks.folds import CORPUS
from benchmarks.reach import corpus


def _spec(name: str) -> dict:
    import tomllib

    return tomllib.loads((CORPUS / name / "expected.toml").read_text())


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a `|` of PySpark's `|` operator would end the cell."""
    return text.replace("|", "\\|")


def _pushed(result: dict) -> str:
    shown = [f"{s.get('kind', '')}: `{s.get('predicate', '')}`" for s in result.get("suggestions", ())]
    return "; ".join(shown) if shown else "nothing"


def _rows(result: dict, table: str) -> str:
    read = result.get("read", {})
    counts = [read.get(variant, {}).get(table) for variant in ("original", "engine", "hand")]
    if counts[0] is not None:  # a read the rewrite's plan lacks was pruned: no row handed on
        counts = [0 if c is None else c for c in counts]
    return " → ".join("–" if c is None else f"{c:,}" for c in counts)


def _blocker(result: dict) -> str:
    if result.get("error"):
        return result["error"]
    blockers = result.get("blockers", ())
    if not blockers:
        return ""
    b = blockers[0]
    return f"{b.get('operator') or b.get('kind')}: {b.get('reason', '')}"[:160]


def handled(result: dict, spec: dict) -> bool:
    """A family is handled when the engine's rewrite is sound and reaches the hand optimum, or,
    where nothing may move, when the engine moves nothing."""
    if spec.get("nothing_may_move"):
        return result.get("sound") is not False and not result.get("suggestions")
    return bool(result.get("effective"))


def render(results: Sequence[dict]) -> str:
    lines = ["| family (peer variants) | PySpark style | engine pushed | hand best | sound | rows read: "
             "original → engine → hand | optimizer s | what stopped it |",
             "|---|---|---|---|---|---|---|---|"]
    families = total_variants = 0
    for result in sorted(results, key=lambda r: _spec(r["name"])["family"].lower()):
        spec = _spec(result["name"])
        table = next(iter(spec["sources"]))
        best = spec["sources"][table].get("best") or "nothing may move"
        ok = handled(result, spec)
        families += ok
        total_variants += spec["variants"]
        seconds = result.get("optimizer_seconds")
        stopped = _blocker(result) or ("the read's rows are not counted (an RDD job of its own)"
                                       if result.get("effective") is None and not spec.get("nothing_may_move") else "")
        lines.append(f"| {spec['family']} ({spec['variants']}) | {spec['style']} | {_cell(_pushed(result))} | "
                     f"{_cell(f'`{best}`')} ({spec['sources'][table].get('kind', '–')}) | {result.get('sound')} | "
                     f"{_rows(result, table)} | {'–' if seconds is None else f'{seconds:.2f}'} | "
                     f"{'handled' if ok else _cell(stopped)} |")
    lines.append("")
    lines.append(f"Handled: {families} of {len(results)} families. One variant of each family is written in "
                 f"PySpark, so {families} of the peer's {total_variants} variants are shown handled; the other "
                 f"variants of a family differ in the late filter's constants and connectives, not written yet.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0].startswith("-"):
        print(__doc__)
        return 2
    results = json.loads(Path(args[0]).read_text())["pipelines"]
    missing = sorted(set(corpus.names(CORPUS)) - {r["name"] for r in results})
    print(render(results))
    if missing:
        print(f"\nnot in this run ({len(missing)}): {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
