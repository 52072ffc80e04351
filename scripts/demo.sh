#!/usr/bin/env bash
# Install MagicPush Lab and optimize the example notebook on local Spark.
# Needs Python 3.10+, Node 20 (to build the JupyterLab extension) and Java 17 (for Spark).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e .
magicpush optimize examples/udf_filter.ipynb "$@"
