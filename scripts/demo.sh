#!/usr/bin/env bash
# Install MagicPush Lab with JupyterLab, then optimize the example notebook on local Spark.
# Needs Python 3.10+, Java 17 (for Spark) and Node 20 (to build the JupyterLab extension).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '== %s\n' "$*" >&2; }

# Spark runs on a JVM: without one, the replay would stop at the notebook's first SparkSession
# with PySpark's JAVA_GATEWAY_EXITED, which does not say what is missing
java_major() {
  local java="java"
  [ -n "${JAVA_HOME:-}" ] && java="$JAVA_HOME/bin/java"
  "$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}
major=$(java_major || true)
if [ -z "$major" ]; then
  say "Java was not found. Spark needs Java 17 or newer: install it (Debian or Ubuntu:"
  say "sudo apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17), then run this again."
  exit 1
fi
if [ "$major" -lt 17 ]; then
  say "Java $major was found; Spark 4 needs Java 17 or newer (JAVA_HOME can point at another one)."
  exit 1
fi

# what this script installed last, and into which Python (the built extension's folder is not
# tracked by git)
stamp=magicpush_lab/labextension/.demo-installed
python=$(python3 -c 'import sys; print(sys.executable)')

# installed by this script into this Python, and nothing it builds from changed since
installed() {
  command -v magicpush >/dev/null 2>&1 || return 1
  python3 -c 'import jupyterlab, magicpush_lab' >/dev/null 2>&1 || return 1
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$python" ] || return 1
  [ -z "$(find src package.json pyproject.toml -newer "$stamp" -print -quit)" ]
}

if installed; then
  say "MagicPush Lab is installed from this checkout (nothing in src/ or pyproject.toml changed since)"
else
  if ! command -v node >/dev/null 2>&1; then
    say "Node.js was not found: building the JupyterLab extension from source needs Node 20 (https://nodejs.org)."
    exit 1
  fi
  say "installing MagicPush Lab and JupyterLab (pip install -e \".[lab]\"); the first install builds"
  say "the JupyterLab extension with Node, about three minutes"
  started=$SECONDS
  python3 -m pip install --quiet --disable-pip-version-check -e ".[lab]"
  printf '%s\n' "$python" > "$stamp"
  say "installed in $((SECONDS - started)) s"
fi

say "optimizing examples/udf_filter.ipynb: a fresh kernel replays it on local Spark"
say "(the first run writes about a million rows of Parquet next to it)"
status=0
magicpush optimize examples/udf_filter.ipynb "$@" || status=$?
say "to see it in JupyterLab: jupyter lab examples/udf_filter.ipynb"
exit "$status"
