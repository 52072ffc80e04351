#!/usr/bin/env bash
# Install everything the tests need, then run the Python tests, the frontend unit tests (jest)
# and the browser (Galata) tests.
# Needs Python 3.10+, Node 20 and Java 17; Chromium comes from Debian's packages.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"

echo "== Python tests"
python3 -m pytest --durations=30

echo "== Frontend unit tests"
# the editable install runs jlpm install only when it builds the extension: make sure jest is there
jlpm install
jlpm test

echo "== Browser tests"
if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  # Playwright's own browser download is not used: Debian's Chromium is
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null
fi
cd ui-tests
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 jlpm install
jlpm playwright test
