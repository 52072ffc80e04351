"""The corpus at a glance, from the expected.toml files alone (no Spark): one Markdown row per
pipeline (where it comes from, its steps and late filter in short, the hand optimum in
short), the counts the corpus is held to, and the paper's pipelines that could not be ported.
README.md's tables are this module's output (`python -m benchmarks.reach --table`).

>>> short_origin("MagicPush paper pipeline NB_140759 (CelebA attributes), ported to PySpark")
'MagicPush NB_140759'
>>> short_origin("public notebook owner/repo src/job.py (its second part)")
'public: owner/repo'
>>> clauses("a, b (c, d), e", 12)
'a, b (c, d), …'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from benchmarks.reach import corpus
from benchmarks.reach.corpus import CORPUS, Pipeline

# The MagicPush paper's pipelines that have no directory in the corpus, and why.
NOT_PORTED = {
    "NB_160505": "the MagicPush prototype (predicate-udf/MagicPush) keeps of it only five pickled tables (data_1, data_2, data_3, data_5, data_7) "
                 "concatenated by four `DataFrame.append` calls, in test/pipeline/NB_160505/pandas_cleaned.py and "
                 "its operator form pipeline.py; no column is named anywhere (no selection, computation or filter; "
                 "the prototype's evaluation notes that it has no filter), and the pickles are not in the "
                 "prototype, so nothing says what the tables hold or what a late filter could be on",
}

# the floors the corpus is held to: paper pipelines attempted (ported or listed above), public
# pipelines, and the share where nothing may move
MIN_PAPER_ATTEMPTED = 71
MIN_PUBLIC = 20
MIN_NOTHING_SHARE = 0.2

STEPS_WIDTH = 110
_MAGICPUSH = re.compile(r"^MagicPush paper pipeline (NB_\d+)")
_PUBLIC = re.compile(r"^public notebooks? (\S+/\S+)")
_SHAPE = re.compile(r"^written in the shape of (.*?)(?: \(|;|$)")


def short_origin(origin: str) -> str:
    """`origin` in a few words: the paper's notebook number, the public repository, or the
    kind of notebook a pipeline was written after."""
    for pattern, label in ((_MAGICPUSH, "MagicPush {}"), (_PUBLIC, "public: {}"), (_SHAPE, "in the shape of {}")):
        found = pattern.match(origin.strip())
        if found:
            return label.format(found.group(1))
    return origin.strip()


def kind_of_origin(origin: str) -> str:
    """"magicpush", "public" (a public notebook or script ported) or "shape" (written in the
    shape of public notebooks, not a port of one)."""
    text = origin.strip()
    return "magicpush" if _MAGICPUSH.match(text) else "public" if _PUBLIC.match(text) else "shape"


def _top_level(text: str) -> list[str]:
    """`text` split at the commas outside parentheses and quotes."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def clauses(text: str, width: int = STEPS_WIDTH) -> str:
    """The first comma-separated clauses of `text` that fit in `width` characters (at least
    one), with "…" when some are left out."""
    parts = _top_level(text)
    kept: list[str] = []
    for part in parts:
        if kept and len(", ".join(kept + [part])) > width:
            return ", ".join(kept) + ", …"
        kept.append(part)
    return ", ".join(kept)


def steps_and_late_filter(what: str) -> tuple[str, str]:
    """`what` is the steps, then after its last "; " the late filter."""
    steps, _, late = what.rpartition("; ")
    return (steps, late) if steps else (what, "")


def short_optimum(pipeline: Pipeline) -> str:
    """The hand optimum as its kind per table: "nothing may move", or e.g. "superset at a, b;
    nothing at c"."""
    if pipeline.nothing_may_move:
        return "nothing may move"
    by_kind: dict[str, list[str]] = {}
    for source in pipeline.sources:
        by_kind.setdefault(source.kind if source.best else "nothing", []).append(source.table)
    order = [k for k in ("equivalent", "superset", "nothing") if k in by_kind]
    return "; ".join(f"{kind} at {', '.join(sorted(by_kind[kind]))}" for kind in order)


@dataclass(frozen=True)
class Counts:
    pipelines: int
    magicpush: int
    public: int
    shape: int
    nothing_may_move: int
    not_ported: int

    @property
    def paper_attempted(self) -> int:
        return self.magicpush + self.not_ported

    @property
    def public_all(self) -> int:
        """Public notebooks ported, and pipelines written in the shape of public ones."""
        return self.public + self.shape

    def shortfalls(self) -> list[str]:
        """The floors the corpus does not reach (empty: it reaches them all)."""
        found = []
        if self.paper_attempted < MIN_PAPER_ATTEMPTED:
            found.append(f"{self.paper_attempted} paper pipelines attempted, under {MIN_PAPER_ATTEMPTED}")
        if self.public_all < MIN_PUBLIC:
            found.append(f"{self.public_all} public pipelines, under {MIN_PUBLIC}")
        if self.nothing_may_move < MIN_NOTHING_SHARE * self.pipelines:
            found.append(f"{self.nothing_may_move} of {self.pipelines} where nothing may move, under "
                         f"{MIN_NOTHING_SHARE:.0%}")
        return found


def counts(pipelines: list[Pipeline]) -> Counts:
    kinds = [kind_of_origin(p.origin) for p in pipelines]
    return Counts(pipelines=len(pipelines), magicpush=kinds.count("magicpush"), public=kinds.count("public"),
                  shape=kinds.count("shape"), nothing_may_move=sum(p.nothing_may_move for p in pipelines),
                  not_ported=len(NOT_PORTED))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def pipeline_rows(pipelines: list[Pipeline]) -> str:
    lines = ["| pipeline | origin | steps | late filter | the hand optimum |", "|---|---|---|---|---|"]
    for p in pipelines:
        steps, late = steps_and_late_filter(" ".join(p.what.split()))
        lines.append(f"| {p.name} | {_cell(short_origin(p.origin))} | {_cell(clauses(steps))} | {_cell(late)} "
                     f"| {_cell(short_optimum(p))} |")
    return "\n".join(lines)


def counts_line(c: Counts) -> str:
    return (f"{c.pipelines} pipelines: {c.magicpush} MagicPush ports ({c.paper_attempted} of the paper's "
            f"pipelines attempted, {c.not_ported} not ported), {c.public_all} public ({c.public} ports of a public "
            f"notebook or script, {c.shape} written in the shape of public notebooks); nothing may move in "
            f"{c.nothing_may_move} ({c.nothing_may_move / c.pipelines:.0%})" if c.pipelines else "no pipelines")


def not_ported_rows() -> str:
    lines = ["| pipeline | why it is not ported |", "|---|---|"]
    lines += [f"| {name} | {_cell(why)} |" for name, why in sorted(NOT_PORTED.items())]
    return "\n".join(lines)


def render(root: Path = CORPUS) -> str:
    """The corpus table, the counts, and the paper's pipelines not ported, as Markdown."""
    pipelines = [corpus.load(name, root) for name in corpus.names(root)]
    c = counts(pipelines)
    parts = [pipeline_rows(pipelines), counts_line(c)]
    parts += [f"Below the floor: {'; '.join(c.shortfalls())}."] if c.shortfalls() else []
    parts += ["### Pipelines not ported", not_ported_rows()]
    return "\n\n".join(parts)
