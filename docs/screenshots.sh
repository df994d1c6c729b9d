#!/usr/bin/env bash
# Regenerates the screenshots of docs/report.md (docs/img/*.png) with
# headless chromium, through the report's browser-test driver
# (report/screenshots_test.go). Needs chromium (apt-get install chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
BACKFILL_DOCS_SCREENSHOTS="$PWD/docs/img" BACKFILL_REQUIRE_BROWSER=1 \
  go test -count=1 -run '^TestScreenshots$' ./report
ls -l docs/img/report-*.png
