"""The benchmark's figure: rows read and wall time per pipeline, original against rewritten.

matplotlib is an optional dependency (`pip install -e ".[bench]"`); without it the numbers
are still written and the plot is skipped with a message saying so.
"""

from __future__ import annotations

import sys
from pathlib import Path

COLORS = {"original": "#4c72b0", "baseline": "#dd8452", "magicpush": "#55a868"}  # one per variant, both panels
MISSING = "matplotlib is not installed (pip install -e \".[bench]\"): plot {} not written"


def write(rows: list[dict], path: Path) -> list[Path]:
    """Two panels, one bar group per pipeline that ran: rows read (log scale) by the original,
    the baseline and MagicPush, and median wall time of the original and of MagicPush."""
    try:
        import matplotlib
    except ImportError:
        print(MISSING.format(path), file=sys.stderr)
        return []
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    ran = [r for r in rows if r["original"] and r["magicpush"]]
    if not ran:
        return []
    names = [r["name"] for r in ran]
    xs = range(len(ran))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(8.0, 0.42 * len(ran) + 2), 8), sharex=True)
    width = 0.28
    for k, (variant, label) in enumerate((("original", "original"), ("baseline", "rule baseline"),
                                          ("magicpush", "MagicPush"))):
        values = [max(1, (r[variant] or r["original"])["total_read"]) for r in ran]
        top.bar([x + (k - 1) * width for x in xs], values, width, label=label, color=COLORS[variant])
    top.set_yscale("log")
    top.set_ylabel("rows read at the sources\n(log scale, 0 drawn as 1)")
    top.legend(fontsize=8)
    for k, (variant, label) in enumerate((("original", "original"), ("magicpush", "MagicPush"))):
        values = [r[variant]["median_s"] or 0 for r in ran]
        bottom.bar([x + (k - 0.5) * width for x in xs], values, width, label=label, color=COLORS[variant])
    bottom.set_ylabel("wall time, median (s)")
    bottom.legend(fontsize=8)
    bottom.set_xticks(list(xs))
    bottom.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [path]
