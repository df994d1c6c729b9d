#!/usr/bin/env bash
# Regenerates the report's embedded front-end bundle from the pinned
# lockfile: `npm ci` (exact versions and integrity hashes of
# package-lock.json), then copies Apache ECharts' minified dist file and its
# licence files next to this script, where go:embed picks them up. The copies
# are committed, so `go build` alone works from a fresh clone.
#
#   ./update.sh           regenerate the committed files
#   ./update.sh --check   regenerate in a scratch directory and fail if the
#                         committed files differ (used by .ci/run when npm is
#                         available)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mode="${1:-}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$work/"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)

src="$work/node_modules/echarts"
version="$(node -p "require('$src/package.json').version")"
mkdir -p "$work/out"
cp "$src/dist/echarts.min.js" "$work/out/echarts.min.js"
cp "$src/LICENSE" "$work/out/echarts.LICENSE"
cp "$src/NOTICE" "$work/out/echarts.NOTICE"
echo "$version" > "$work/out/echarts.version"

if [ "$mode" = "--check" ]; then
  status=0
  for f in echarts.min.js echarts.LICENSE echarts.NOTICE echarts.version; do
    if ! cmp -s "$work/out/$f" "$here/$f"; then
      echo "report/web/$f does not match echarts $version from package-lock.json; run report/web/update.sh" >&2
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "report/web: committed bundle matches echarts $version from package-lock.json"
  exit $status
fi
cp "$work/out/"* "$here/"
echo "report/web: echarts $version copied"
