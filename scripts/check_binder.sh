#!/usr/bin/env bash
# What Binder does with binder/, checked on this machine: a fresh Python environment,
# binder/postBuild in it, then JupyterLab asked whether the extensions are on, and the
# example notebook run top to bottom in that environment's kernel with %magicpush at the end.
# Java and Node come from the machine here; on Binder, from binder/environment.yml.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/env"
export PATH="$work/env/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check --upgrade pip
bash binder/postBuild

echo "== extensions"
jupyter labextension list 2>&1 | grep -E "magicpush-lab .*enabled.*OK"
jupyter server extension list 2>&1 | grep -E "magicpush_lab .*enabled"

echo "== the example notebook, run in the new environment's kernel"
cp -r examples "$work/examples"
EXAMPLE_ROWS=20000 python - "$work/examples/udf_filter.ipynb" <<'PY'
import sys

import nbclient
import nbformat

path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
nb.cells.insert(0, nbformat.v4.new_code_cell("%load_ext magicpush_lab"))
nb.cells.append(nbformat.v4.new_code_cell("%magicpush --no-measure"))
nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                        resources={"metadata": {"path": str(__import__("pathlib").Path(path).parent)}}).execute()
text = "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in nb.cells[-1].outputs)
print(text)
if "equivalent" not in text:
    sys.exit("the example's pushdown was not found in the Binder environment")
PY
echo "Binder environment OK"
