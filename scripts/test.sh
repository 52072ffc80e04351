#!/usr/bin/env bash
# Install everything the tests need, then run the Python tests, the frontend unit tests (jest)
# and the browser (Galata) tests.
# Needs Python 3.10+, Node 20 and Java 17; Chromium comes from Debian's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
stage_started=$(date +%s)
stage_done() { echo "== $1 took $(( $(date +%s) - stage_started )) s"; stage_started=$(date +%s); }

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
stage_done "installing"

# every Spark JVM of the tests (sessions, kernels, Connect servers, the browser tests' kernels)
# starts from a class-data archive of Spark's classes, built once per machine (about 40 s; a
# session then starts in half the time): scripts/spark_class_archive.py
export SPARK_SUBMIT_OPTS="$(python3 scripts/spark_class_archive.py)"
stage_done "the Spark class archive"

echo "== Python tests"
# two workers, each with its own JVMs for the whole run; a module stays on one worker, so
# its fixtures (a kernel, a Connect server, data) are made once. The slow tier (README,
# "Testing") is left to `python -m pytest -n 2 --dist loadfile --connect-matrix=full`
# (a worker that dies is replaced and its module re-run; should anything then hang, the stage
# stops at 45 minutes with pytest's report instead of running into CI's limit)
timeout --signal=INT --kill-after=120 45m python3 -m pytest -n 2 --dist loadfile -m "not slow" --durations=30
stage_done "the Python tests"

echo "== Frontend unit tests"
# the editable install runs jlpm install only when it builds the extension: make sure jest is there
jlpm install
jlpm test
stage_done "the frontend unit tests"

echo "== Browser tests"
if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  # Playwright's own browser download is not used: Debian's Chromium is
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null
fi
cd ui-tests
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 jlpm install
jlpm playwright test
stage_done "the browser tests"
