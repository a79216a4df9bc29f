#!/bin/sh
# npm's `prepare` for this checkout (npm install, npm ci): build dist/ with the TypeScript compiler,
# a dev dependency. A production install (README, Production install: `npm ci` builds, then
# `npm ci --omit=dev` keeps only the dependencies) has no compiler: it keeps the dist/ already built,
# and refuses when there is none rather than leaving a package that cannot start.
set -eu
if [ -x node_modules/.bin/tsc ]; then
  exec npm run build
fi
if [ ! -f dist/supervisor/main.js ]; then
  echo 'prepare: dist/ is not built and the TypeScript compiler is not installed (dev dependencies omitted).' >&2
  echo 'prepare: build first with a full install (npm ci), then npm ci --omit=dev; README: Production install.' >&2
  exit 1
fi
echo 'prepare: dev dependencies omitted: using dist/ as built' >&2
