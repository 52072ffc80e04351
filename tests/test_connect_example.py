"""The example notebook, unchanged, end to end on a Spark Connect session: `magicpush optimize
--remote` gives the suggestion it gives on a local session, with the rows counted on the server,
the rewritten notebook gives the same answer there, and `%magicpush` in a kernel whose session is
Connect shows the suggestion with its counted rows.

EXAMPLE_ROWS keeps the generated data small; the kernels inherit it. The kernels here connect to
the test server through the kernel extension's MAGICPUSH_REMOTE, as the CLI's replay kernel does.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from magicpush_lab.cli import main
from magicpush_lab.kernel.extension import REMOTE_VARIABLE
from tests.connect_support import connect_server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.spark, pytest.mark.kernel]

EXAMPLE = Path(__file__).parent.parent / "examples" / "udf_filter.ipynb"
ROWS = 20000


def _optimize(notebook: Path, *extra: str) -> dict:
    out = io.StringIO()
    code = main(["optimize", str(notebook), "--json", *extra], stdout=out)
    result = json.loads(out.getvalue())
    assert code == 0, result
    return result


def _run_on_connect(notebook: Path, url: str, monkeypatch: pytest.MonkeyPatch, *, before: list[str],
                    after: list[str]) -> nbformat.NotebookNode:
    """Run `notebook` in a fresh kernel whose sessions connect to `url`: `before` cells (loading
    the kernel extension) go first, `after` cells last; the executed notebook is returned."""
    monkeypatch.setenv(REMOTE_VARIABLE, url)
    nb = nbformat.read(notebook, as_version=4)
    nb.cells = ([nbformat.v4.new_code_cell(c) for c in before] + nb.cells
                + [nbformat.v4.new_code_cell(c) for c in after])
    NotebookClient(nb, timeout=300, resources={"metadata": {"path": str(notebook.parent)}}).execute()
    return nb


def _text(cell: nbformat.NotebookNode) -> str:
    parts = []
    for output in cell.outputs:
        if output.get("output_type") == "stream":
            parts.append(output.get("text", ""))
        elif "data" in output:
            parts.append(output["data"].get("text/plain", ""))
    return "".join(parts)


def _big_earners(nb: nbformat.NotebookNode) -> int:
    """The count the example's last cell prints."""
    [cell] = [c for c in nb.cells if "big-earner orders" in c.source]
    match = re.search(r"(\d+) big-earner orders", _text(cell))
    assert match, f"unexpected output of the count cell: {_text(cell)!r}"
    return int(match.group(1))


def _copy(tmp_path: Path, folder: str) -> Path:
    (tmp_path / folder).mkdir()
    return Path(shutil.copy(EXAMPLE, tmp_path / folder / EXAMPLE.name))


# about a minute (two replays of the example, one local, one on the server): slow tier. In CI,
# tests/test_connect_cli.py replays on a Connect server and counts there, and the browser test
# of ui-tests/tests/connect.spec.ts takes the example's suggestion on a Connect session
@pytest.mark.slow
def test_the_cli_gives_the_local_suggestion_on_connect_and_the_rewrite_keeps_the_answer(
        tmp_path, monkeypatch, connect_server):  # noqa: F811 - the fixture
    monkeypatch.setenv("EXAMPLE_ROWS", str(ROWS))
    local, remote = _copy(tmp_path, "local"), _copy(tmp_path, "connect")
    rewritten = remote.parent / "rewritten.ipynb"

    local_result = _optimize(local)
    connect_result = _optimize(remote, "--remote", connect_server.url, "--apply", "-o", str(rewritten))
    assert len(local_result["suggestions"]) == 1, local_result
    assert len(connect_result["suggestions"]) == 1, connect_result
    [on_local], [on_connect] = local_result["suggestions"], connect_result["suggestions"]

    # the server wrote the data next to the notebook, where the notebook looks for it
    assert (remote.parent / "data" / "orders.parquet").is_dir()
    same = ("source", "predicate", "kind", "rows_before", "rows_after")
    assert {k: on_connect[k] for k in same} == {k: on_local[k] for k in same}, (on_local, on_connect)
    assert [(p["category"], p["base_case_rows"]) for p in on_connect["proof"]] == \
        [(p["category"], p["base_case_rows"]) for p in on_local["proof"]] == [("ROW-TO-ROW", 1)]
    assert on_connect["source"] == "orders" and on_connect["kind"] == "equivalent"
    assert 0 < on_connect["rows_after"] < on_connect["rows_before"] == ROWS
    assert "loyalty_points" not in on_connect["predicate"]

    # the rewritten notebook, run on the server, counts what the original counts
    session_kind = "print(type(spark).__module__)"
    original = _run_on_connect(remote, connect_server.url, monkeypatch,
                               before=["%load_ext magicpush_lab"], after=[session_kind])
    changed = _run_on_connect(rewritten, connect_server.url, monkeypatch,
                              before=["%load_ext magicpush_lab"], after=[session_kind])
    for nb in (original, changed):
        assert _text(nb.cells[-1]).strip() == "pyspark.sql.connect.session"
    assert ".filter(" in nbformat.read(rewritten, as_version=4).cells[3].source
    assert _big_earners(changed) == _big_earners(original) == on_connect["rows_after"]


def test_magicpush_in_a_kernel_whose_session_is_connect(tmp_path, monkeypatch, connect_server):  # noqa: F811
    monkeypatch.setenv("EXAMPLE_ROWS", str(ROWS))
    notebook = _copy(tmp_path, "connect")
    nb = _run_on_connect(notebook, connect_server.url, monkeypatch, before=["%load_ext magicpush_lab"],
                         after=["print(type(spark).__module__)", "%magicpush"])
    assert _text(nb.cells[-2]).strip() == "pyspark.sql.connect.session"
    # the example's first cell ran without the SparkContext a Connect session lacks
    assert not [o for o in nb.cells[2].outputs if o.get("output_type") == "error"]
    shown = _text(nb.cells[-1])
    kept = _big_earners(nb)
    assert 0 < kept < ROWS
    line = shown[re.search(r"(?m)^1\. ", shown).start():].split("\n\n")[0]  # suggestion 1's block
    assert "orders" in line and 'F.col("amount")' in line and "equivalent" in line, shown
    assert "row by row (ROW-TO-ROW, 1 row)" in line, shown
    # rows counted on the Connect session: the source's rows, and after the filter the big earners
    assert f"{ROWS:,} -> {kept:,}" in line, shown
