#!/bin/sh
# npm's install script for this package (npm install, npm ci): node-gyp builds the subreaper addon
# (binding.gyp). npm runs a package's own install script in the foreground, unlike its
# dependencies' (whose output it shows only when they fail), so node-gyp's `gyp info` lines and
# make's would fill every install. Here they go to a temporary file, shown only when the build
# fails, followed by what it needs; the exit status is node-gyp's, so npm reports the failure as
# its own. `--foreground-scripts` or `--loglevel verbose` (or silly) shows them as they come.
set -u
case "${npm_config_foreground_scripts:-}:${npm_config_loglevel:-}" in
  true:* | *:verbose | *:silly) exec node-gyp rebuild ;;
esac
log=$(mktemp "${TMPDIR:-/tmp}/hermes-mcp-gateway-node-gyp.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
status=0
node-gyp rebuild >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$log" >&2
  echo "build-native: node-gyp rebuild failed (exit $status), its output is above. The subreaper addon builds from source: it needs a C/C++ toolchain, make and python3 (Debian/Ubuntu: apt-get install build-essential python3) and Node's headers (scripts/install.sh points node-gyp at the running node's own)." >&2
fi
exit "$status"
