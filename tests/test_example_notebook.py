"""The example notebook end to end: suggestion from the CLI, applied, re-run, same answer.

The example generates its own data; EXAMPLE_ROWS keeps it small here (the
replay kernel inherits the environment).
"""

from __future__ import annotations

import io
import itertools
import json
import re
import shutil
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from magicpush_lab.cli import main

EXAMPLE = Path(__file__).parent.parent / "examples" / "udf_filter.ipynb"
SOURCE_COLUMNS = {"order_id", "customer", "amount"}


def _big_earners(*notebooks: Path) -> list[int]:
    """Run notebooks one after the other in one fresh kernel (one JVM start, not one per
    notebook) and read the count each one's last cell prints. Each notebook runs all its cells
    from its first, so each count is that notebook's own."""
    nbs = [nbformat.read(path, as_version=4) for path in notebooks]
    both = nbformat.v4.new_notebook(cells=[cell for nb in nbs for cell in nb.cells])
    NotebookClient(both, timeout=300, resources={"metadata": {"path": str(notebooks[0].parent)}}).execute()
    counts = []
    for at in itertools.accumulate(len(nb.cells) for nb in nbs):
        text = "".join(o.get("text", "") for o in both.cells[at - 1].outputs if o.get("output_type") == "stream")
        match = re.search(r"(\d+) big-earner orders", text)
        assert match, f"unexpected output of the last cell: {text!r}"
        counts.append(int(match.group(1)))
    return counts


def test_example_suggestion_applies_and_keeps_the_result(tmp_path, monkeypatch):
    monkeypatch.setenv("EXAMPLE_ROWS", "20000")
    shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name)
    original = tmp_path / EXAMPLE.name
    rewritten = tmp_path / "rewritten.ipynb"

    out = io.StringIO()
    code = main(["optimize", str(original), "--json", "--apply", "-o", str(rewritten)], stdout=out)
    assert code == 0
    result = json.loads(out.getvalue())
    [suggestion] = result["suggestions"]
    assert suggestion["source"] == "orders"
    assert suggestion["kind"] == "equivalent"
    assert suggestion["rows_after"] < suggestion["rows_before"] == 20000
    assert [(p["category"], p["base_case_rows"]) for p in suggestion["proof"]] == [("ROW-TO-ROW", 1)]
    # the pushed predicate speaks only of columns the source has
    used = set(re.findall(r'F\.col\("([^"]+)"\)', suggestion["predicate"]))
    assert used and used <= SOURCE_COLUMNS

    assert "loyalty_points" not in suggestion["predicate"]
    assert _big_earners(original, rewritten) == [suggestion["rows_after"]] * 2

    # optimized again, the applied notebook offers nothing twice: its read's filter is in place
    again = io.StringIO()
    assert main(["optimize", str(rewritten), "--json", "--no-measure"], stdout=again) == 0
    applied = json.loads(again.getvalue())
    assert applied["suggestions"] == [], applied["suggestions"]
    [in_place] = applied["already_applied"]
    assert in_place["predicate"] == suggestion["predicate"] and suggestion["predicate"] in in_place["step"], in_place
    assert any(n.startswith("already in place:") for n in applied["notes"]), applied["notes"]
