"""python -m benchmarks.folds RUN.json [--variants]: the table of the fold families, one row per
family (with --variants, then one row per variant written).

The families are the 26 stateful aggregations of the public Pusharoo benchmark set, each
variant written in PySpark in a style users write (corpus/<name>/ for a family's first variant
written, corpus/<name>_<n>/ for its variant n, in the reach corpus's format:
benchmarks/reach/README.md). They run through the reach benchmark:

    python -m benchmarks.reach --corpus benchmarks/folds/corpus --json RUN.json
    python -m benchmarks.reach --corpus benchmarks/folds/corpus --check all     # each hand optimum sound?

and this prints, from the run's JSON, the corpus's expected.toml and the peer's published kind
and time per variant (peer.csv), per family: its style, the variants written and handled, the
kinds the engine pushed beside those the peer synthesized, the median optimizer time beside the
peer's, and what stopped the variants not handled; then the counts. With --variants, per
variant: what the engine pushed (its kind and predicate) beside the hand-derived best and the
peer's kind, whether the rewrite kept the output, the rows the read handed on (original,
engine, hand optimum) and the optimizer's time.
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


def peer() -> dict[str, tuple[str, float]]:
    """The peer's published kind and synthesis seconds per variant (benchmarks/folds/peer.csv)."""
    rows = [line.split(",") for line in (CORPUS.parent / "peer.csv").read_text().splitlines()
            if line and not line.startswith(("#", "variant,"))]
    return {variant: (kind, float(seconds)) for variant, kind, seconds in rows}


def _kind(result: dict) -> str:
    kinds = sorted({s.get("kind", "") for s in result.get("suggestions", ())})
    return "/".join(kinds) if kinds else "nothing"


def render_variants(results: Sequence[dict]) -> str:
    """One row per written variant: what the engine pushed beside the hand best and the peer's kind."""
    published = peer()
    lines = ["| variant | engine pushed | hand best | peer | sound | rows read: original → engine → hand | "
             "optimizer s | handled, or what stopped it |",
             "|---|---|---|---|---|---|---|---|"]
    for result in sorted(results, key=lambda r: _spec(r["name"])["variant"].lower()):
        spec = _spec(result["name"])
        table = next(iter(spec["sources"]))
        best = spec["sources"][table].get("best") or "nothing may move"
        kind, seconds = published.get(spec["variant"], ("–", None))
        theirs = kind if seconds is None else f"{kind}, {seconds:.2f} s"
        mine = result.get("optimizer_seconds")
        lines.append(f"| {spec['variant']} | {_cell(_pushed(result))} | "
                     f"{_cell(f'`{best}`')} ({spec['sources'][table].get('kind', '–')}) | {theirs} | "
                     f"{result.get('sound')} | {_rows(result, table)} | {'–' if mine is None else f'{mine:.2f}'} | "
                     f"{'handled' if handled(result, spec) else _cell(_stopped(result, spec))} |")
    return "\n".join(lines)


def _stopped(result: dict, spec: dict) -> str:
    return _blocker(result) or ("the read's rows are not counted (an RDD job of its own)"
                                if result.get("effective") is None and not spec.get("nothing_may_move") else "")


def render(results: Sequence[dict]) -> str:
    """One row per family: its style, the variants written and handled, the engine's kinds beside
    the peer's, the median optimizer time beside the peer's median synthesis time."""
    published = peer()
    by_family: dict[str, list[dict]] = {}
    for result in results:
        by_family.setdefault(_spec(result["name"])["family"], []).append(result)
    lines = ["| family (peer variants) | PySpark style | written | handled | engine pushed | peer synthesized | "
             "sound | median s: engine, peer | what stopped the others |",
             "|---|---|---|---|---|---|---|---|---|"]
    written = handled_variants = families = 0
    total = 0
    for family in sorted(by_family, key=str.lower):
        runs = by_family[family]
        specs = [_spec(r["name"]) for r in runs]
        done = [handled(r, sp) for r, sp in zip(runs, specs)]
        written += len(runs)
        handled_variants += sum(done)
        families += all(done)
        total += specs[0]["variants"]
        ours = _counted(_kind(r) for r in runs)
        theirs = _counted(published.get(sp["variant"], ("–", 0))[0] for sp in specs)
        stopped = sorted({_cell(_stopped(r, sp))[:90] for r, sp, ok in zip(runs, specs, done) if not ok} - {""})
        mine = _median([r["optimizer_seconds"] for r in runs if r.get("optimizer_seconds") is not None])
        peer_s = _median([published[sp["variant"]][1] for sp in specs if sp["variant"] in published])
        sound = sum(r.get("sound") is not False for r in runs)
        lines.append(f"| {family} ({specs[0]['variants']}) | {specs[0]['style']} | {len(runs)} | {sum(done)} | "
                     f"{ours} | {theirs} | {sound} of {len(runs)} | {_seconds(mine)}, {_seconds(peer_s)} | "
                     f"{'; '.join(stopped) or '–'} |")
    lines.append("")
    lines.append(f"Handled: {handled_variants} of the {written} variants written ({total} in the peer's set, which "
                 f"reports 150 for its synthesizer and 22 for the MagicPush prototype); {families} of "
                 f"{len(by_family)} families have every written variant handled.")
    return "\n".join(lines)


def _counted(kinds) -> str:
    counts: dict[str, int] = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    variants = "--variants" in args
    args = [a for a in args if a != "--variants"]
    if len(args) != 1 or args[0].startswith("-"):
        print(__doc__)
        return 2
    results = json.loads(Path(args[0]).read_text())["pipelines"]
    missing = sorted(set(corpus.names(CORPUS)) - {r["name"] for r in results})
    print(render(results))
    if variants:
        print()
        print(render_variants(results))
    if missing:
        print(f"\nnot in this run ({len(missing)}): {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
