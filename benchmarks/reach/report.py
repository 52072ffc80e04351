"""The benchmark's tables, as Markdown (they read in a terminal and paste into docs/)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from benchmarks.reach.bench import PipelineResult, median_seconds


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (code may hold `|`)."""
    return text.replace("|", "\\|").replace("\n", " ")


def _yes_no(value: bool | None, unknown: str = "—") -> str:
    return unknown if value is None else "yes" if value else "NO"


def _rows(result: PipelineResult) -> str:
    """Per table: rows handed on, original → engine → hand (hand only at tables with a best)."""
    parts = []
    for table in result.tables:
        original, rewritten, hand = (result.read.get(v, {}).get(table) for v in ("original", "engine", "hand"))
        if table not in result.reducible_tables:
            hand = None
        cells = [f"{v:,}" if v is not None else "—" for v in (original, rewritten, hand)]
        parts.append(f"{table} {' → '.join(cells)}")
    return "; ".join(parts)


def _blockers(result: PipelineResult) -> str:
    if result.error:
        return result.error
    return "; ".join(f"{b.kind} at {b.where}" if b.where else b.kind for b in result.blockers) or "—"


def pipeline_table(results: list[PipelineResult], budget: float) -> str:
    lines = ["| pipeline | sound | effective | rows handed on: original → engine → hand | share | optimizer s "
             "| blockers |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        effective = "—" if r.error else _yes_no(r.effective) if r.reducible else "n/a (nothing may move)"
        share = "Spark alone" if r.spark_alone else f"{r.share:.0%}" if r.share is not None else "—"
        seconds = "—" if r.optimizer_seconds is None else f"{r.optimizer_seconds:.2f}" + (
            f" (over {budget:g} s)" if r.over_budget else "")
        sound = _yes_no(r.sound) + (f" ({r.unsound_why})" if r.unsound_why else "")
        lines.append(f"| {r.name} | {_cell(sound)} | {effective} | {_rows(r)} | {share} | {seconds} | "
                     f"{_cell(_blockers(r))} |")
    return "\n".join(lines)


def blocker_counts(results: list[PipelineResult]) -> list[dict[str, Any]]:
    """Per blocker kind: the pipelines it appears in, most first; how many of them are
    reducible pipelines the engine was not effective on, and how many are pipelines where
    nothing may move (where stopping is right)."""
    by_kind: dict[str, set[str]] = defaultdict(set)
    for r in results:
        for b in r.blockers:
            by_kind[b.kind].add(r.name)
    named = {r.name: r for r in results}
    rows = [{"kind": kind, "pipelines": len(names),
             "not_effective": sum(1 for n in names if named[n].reducible and not named[n].effective),
             "nothing_may_move": sum(1 for n in names if not named[n].reducible),
             "names": sorted(names)} for kind, names in by_kind.items()]
    return sorted(rows, key=lambda row: (-row["pipelines"], -row["not_effective"], row["kind"]))


def blocker_table(results: list[PipelineResult]) -> str:
    lines = ["| blocker | pipelines | of them not effective | of them nothing may move | which |",
             "|---|---|---|---|---|"]
    for row in blocker_counts(results):
        lines.append(f"| {_cell(row['kind'])} | {row['pipelines']} | {row['not_effective']} "
                     f"| {row['nothing_may_move']} | {', '.join(row['names'])} |")
    return "\n".join(lines)


def summary(results: list[PipelineResult]) -> dict[str, Any]:
    ran = [r for r in results if not r.error]
    reducible = [r for r in ran if r.reducible]
    effective = [r for r in reducible if r.effective]
    sound = [r for r in ran if r.sound]
    return {"pipelines": len(results), "ran": len(ran), "reducible": len(reducible), "effective": len(effective),
            "spark_alone": sum(1 for r in reducible if r.spark_alone),
            "sound": len(sound), "median_optimizer_seconds": median_seconds(ran),
            "over_budget": sum(1 for r in ran if r.over_budget)}


def _share(part: int, whole: int) -> str:
    """A share to one decimal, so that 55 of 65 (84.6%) never reads as a target of 85% met.

    >>> _share(55, 65), _share(0, 0)
    ('84.6%', '—')
    """
    return f"{part / whole:.1%}" if whole else "—"


def summary_line(results: list[PipelineResult]) -> str:
    s = summary(results)
    median = s["median_optimizer_seconds"]
    failed = s["pipelines"] - s["ran"]
    return (f"{s['pipelines']} pipelines" + (f" ({failed} could not run)" if failed else "") +
            f", {s['reducible']} reducible, {s['effective']} effective ({_share(s['effective'], s['reducible'])}; "
            f"Spark alone reaches the optimum in {s['spark_alone']}), "
            f"{s['sound']} sound ({_share(s['sound'], s['ran'])}), median optimizer time "
            + (f"{median:.2f} s" if median is not None else "—")
            + (f", {s['over_budget']} over budget" if s["over_budget"] else ""))


def render(results: list[PipelineResult], budget: float) -> str:
    return "\n\n".join([pipeline_table(results, budget), "Blockers by the number of pipelines they stop:",
                        blocker_table(results), summary_line(results)])
