#!/usr/bin/env bash
# Installs swagger-ui-dist from the npm registry at the version package-lock.json pins (install scripts off: the
# package's only dependency is a telemetry hook) and copies the files GET /docs embeds next to this script.
# To upgrade: change the version in package.json, run `npm install --package-lock-only --ignore-scripts` here, run
# this script, check /docs in a browser (go test ./tests -run Browser), and commit the result.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp package.json package-lock.json "$tmp/"
(cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund)
dist="$tmp/node_modules/swagger-ui-dist"
cp "$dist"/{swagger-ui-bundle.js,swagger-ui-bundle.js.LICENSE.txt,swagger-ui.css,favicon-32x32.png,favicon-16x16.png,LICENSE,NOTICE} .
echo "swagger-ui-dist $(node -p "require('$dist/package.json').version") copied"
