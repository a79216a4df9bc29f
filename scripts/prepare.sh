#!/bin/sh
# npm's `prepare` for this checkout (npm install, npm ci): build dist/ with the TypeScript compiler
# and the type packages, dev dependencies. A production install (docs/operations.md, Production install: `npm ci`
# builds, then `npm ci --omit=dev` keeps only the dependencies) has no build: it keeps the dist/
# already built, and refuses when there is none rather than leaving a package that cannot start.
# TypeScript alone is no sign of a full install: --omit=dev keeps it as valibot's optional peer.
set -eu
if [ -x node_modules/.bin/tsc ] && [ -f node_modules/@types/node/package.json ]; then
  exec npm run build
fi
if [ ! -f dist/bin/gateway.js ]; then
  echo 'prepare: dist/ is not built and the TypeScript compiler is not installed (dev dependencies omitted).' >&2
  echo 'prepare: build first with a full install (npm ci), then npm ci --omit=dev; docs/operations.md: Production install.' >&2
  exit 1
fi
echo 'prepare: dev dependencies omitted: using dist/ as built' >&2
