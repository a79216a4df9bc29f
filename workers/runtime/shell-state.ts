// The bash both command runners (spawn-per-call and persistent shell) use to carry an owner's
// cwd and exports between commands, Hermes-style: restore from the state directory, save back on
// exit. Expects `__hermes_state` to hold the directory. Builtins only (no mv/grep on the hot path);
// the __hermes_* helpers are not exported, so `export -p` holds exactly the user's exports. The
// worker's tag is re-exported after restoring: a snapshot may hold an older worker's tag, and the
// fallback sweep finds this worker's processes by it.
export const SHELL_STATE = String.raw`
__hermes_tag="$HERMES_MCP_WORKER_TAG"
if [ -f "$__hermes_state/env.sh" ]; then . "$__hermes_state/env.sh" >/dev/null 2>&1; fi
export HERMES_MCP_WORKER_TAG="$__hermes_tag"
__hermes_save() {
  { builtin pwd -P > "$__hermes_state/cwd"; export -p > "$__hermes_state/env.sh"; } 2>/dev/null
}
trap __hermes_save EXIT
`;
