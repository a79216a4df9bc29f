#!/usr/bin/env bash
# Restart hermes-mcp-gateway without cutting anything off: snapshot the job database, drain job
# admission, wait until the gateway reports no in-flight request and no in-flight native call,
# restart the unit, wait for /readyz, then reopen admission. Never cancels a job: whenever it
# cannot go on safely it stops before the restart and leaves admission paused for the operator.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/restart-gateway.sh --owner-token-file PATH [options]

Restarts the gateway's systemd unit safely, one line per step:
  1. preflight  check the options, the token file, the database and that /healthz reports
                the in-flight counters (inflight_requests, inflight_native_calls)
  2. snapshot   consistent private copy of the job database (admission CLI `snapshot`)
  3. drain      pause job admission under the owner token and wait until no job is active
  4. idle       wait until /healthz shows 0 in-flight requests and 0 in-flight native calls
  5. restart    systemctl [--user] restart UNIT
  6. ready      wait until /readyz answers 200
  7. resume     reopen job admission with the same owner token
No job is ever cancelled. If a step before the restart fails or times out, the unit is not
restarted and admission stays paused: investigate (admission CLI `status`), then run this helper
again with the same token file, or reopen admission with --resume-only.

Options:
  --owner-token-file PATH   file holding the operator owner token (32-128 characters of
                            A-Z a-z 0-9 . _ ~ + / = -), owned by you and not accessible by
                            group or others (chmod 600). Required. The token is never put on
                            any command line.
  --database PATH           job database (default: $HERMES_HOME/gateway-jobs.sqlite3,
                            HERMES_HOME defaulting to ~/.hermes)
  --snapshot PATH           snapshot file to create (default: next to the database,
                            <name>.pre-restart-<UTC timestamp>.sqlite3); must not exist
  --url URL                 gateway base URL, loopback only: http://127.x.x.x, http://localhost
                            or http://[::1], with an optional port (default http://127.0.0.1:3060)
  --user | --system         user unit (systemctl --user, the default) or system unit (systemctl)
  --unit NAME               unit to restart (default hermes-mcp-gateway.service)
  --drain-timeout S         seconds to wait for active jobs (default: the admission CLI's
                            drainTimeoutSeconds, 600 in policy/default-limits.json)
  --idle-timeout S          seconds to wait for zero in-flight work (default 120)
  --ready-timeout S         seconds to wait for /readyz 200 after the restart (default 120)
  --acknowledge-unmeasured-inflight
                            a legacy gateway whose /healthz lacks the in-flight counters cannot
                            be measured idle; restart it anyway (in-flight MCP requests and native
                            calls may be cut off). Without this flag such a gateway is refused.
  --admission-cli PATH      admission CLI, a JavaScript file run with node (default: the repo's
                            dist/bin/admission.js, found relative to this script)
  --node PATH               node binary (default: command -v node)
  --resume-only             only reopen admission with the token file (after investigating an
                            aborted run), then exit; restarts nothing
  -h, --help                show this help

Exit codes:
  0  restarted and admission reopened (or, with --resume-only, admission reopened)
  1  a step failed (gateway unreachable, snapshot, drain error, systemctl, resume); the message
     says whether admission was left paused
  2  usage error or unsafe input, refused before doing anything (unknown option, non-loopback
     URL, token file readable by others or malformed, missing database or tool)
  3  drain timed out: jobs still active, nothing restarted, admission left PAUSED
  4  idle wait timed out: requests or native calls still in flight, nothing restarted,
     admission left PAUSED
  5  refused: legacy gateway without the in-flight counters (pass
     --acknowledge-unmeasured-inflight to restart it anyway); nothing was done
  6  the restarted gateway did not answer /readyz 200 in time; admission left PAUSED
USAGE
}

readonly ME="restart-gateway.sh"
readonly EXIT_FAILED=1 EXIT_USAGE=2 EXIT_DRAIN_TIMEOUT=3 EXIT_IDLE_TIMEOUT=4 EXIT_UNMEASURED=5 EXIT_NOT_READY=6

die_with() { local code="$1"; shift; echo "$ME: $*" >&2; exit "$code"; }
die() { die_with "$EXIT_USAGE" "$@"; }
step() { echo "$ME: $*"; }
show() { [[ -z "$1" ]] || printf '%s\n' "$1" | sed "s/^/$ME:   /" >&2; } # a sub-command's output, indented

database=""
token_file=""
snapshot=""
url="http://127.0.0.1:3060"
mode=""
unit="hermes-mcp-gateway.service"
drain_timeout=""
idle_timeout="120"
ready_timeout="120"
acknowledge_unmeasured=0
admission_cli=""
node_bin=""
resume_only=0

need_arg() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --database) need_arg "$@"; database="$2"; shift 2 ;;
    --owner-token-file) need_arg "$@"; token_file="$2"; shift 2 ;;
    --snapshot) need_arg "$@"; snapshot="$2"; shift 2 ;;
    --url) need_arg "$@"; url="$2"; shift 2 ;;
    --user) [[ -z "$mode" || "$mode" == user ]] || die "--user and --system are exclusive"; mode=user; shift ;;
    --system) [[ -z "$mode" || "$mode" == system ]] || die "--user and --system are exclusive"; mode=system; shift ;;
    --unit) need_arg "$@"; unit="$2"; shift 2 ;;
    --drain-timeout) need_arg "$@"; drain_timeout="$2"; shift 2 ;;
    --idle-timeout) need_arg "$@"; idle_timeout="$2"; shift 2 ;;
    --ready-timeout) need_arg "$@"; ready_timeout="$2"; shift 2 ;;
    --acknowledge-unmeasured-inflight) acknowledge_unmeasured=1; shift ;;
    --admission-cli) need_arg "$@"; admission_cli="$2"; shift 2 ;;
    --node) need_arg "$@"; node_bin="$2"; shift 2 ;;
    --resume-only) resume_only=1; shift ;;
    --owner-token|--owner-token=*) die "the owner token is never taken on the command line (other users can read it with ps); put it in a chmod 600 file and pass --owner-token-file" ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
mode="${mode:-user}"

# ---- preflight: everything that can be checked is checked before anything changes ------------

check_seconds() { [[ "$2" =~ ^[1-9][0-9]{0,6}$ ]] || die "$1 must be a whole number of seconds, at least 1 (got '$2')"; }
[[ -z "$drain_timeout" ]] || check_seconds --drain-timeout "$drain_timeout"
check_seconds --idle-timeout "$idle_timeout"
check_seconds --ready-timeout "$ready_timeout"
unit_re='^[A-Za-z0-9:_.@-]+$'
[[ "$unit" =~ $unit_re && "$unit" != -* ]] || die "invalid unit name: $unit"

# Loopback only: the helper must never be pointed at (or leak a request to) another host.
url="${url%/}"
octet='(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
loopback_re="^http://(127\\.$octet\\.$octet\\.$octet|localhost|\\[::1\\])(:[0-9]{1,5})?\$"
[[ "$url" =~ $loopback_re ]] || die "--url must be a loopback http URL without a path (http://127.0.0.1:PORT, http://localhost:PORT or http://[::1]:PORT); refusing '$url'"

# The owner token: from a private file only.
[[ -n "$token_file" ]] || { usage >&2; die "--owner-token-file is required (the token that pauses admission is the only one that can reopen it)"; }
[[ ! -L "$token_file" ]] || die "owner token file $token_file is a symbolic link; give the real file"
[[ -f "$token_file" ]] || die "owner token file $token_file does not exist or is not a regular file"
read -r token_mode token_uid < <(stat -c '%a %u' -- "$token_file") || die "cannot stat owner token file $token_file"
[[ "$token_uid" == "$(id -u)" ]] || die "owner token file $token_file belongs to uid $token_uid, not to you ($(id -u)); refusing"
(( (8#$token_mode & 8#077) == 0 )) || die "owner token file $token_file has mode $token_mode: group or others can access it; run chmod 600 $token_file (and consider rotating the token)"
token=""
IFS= read -r token < "$token_file" || [[ -n "$token" ]] || die "owner token file $token_file is empty"
token="${token%$'\r'}"
[[ "$token" =~ ^[A-Za-z0-9._~+/=-]{32,128}$ ]] || die "owner token file $token_file must hold one line of 32-128 characters from A-Z a-z 0-9 . _ ~ + / = -"

[[ -n "$node_bin" ]] || node_bin="$(command -v node || true)"
[[ -n "$node_bin" && -x "$node_bin" ]] || die "node not found on PATH; pass --node"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ -n "$admission_cli" ]] || admission_cli="$(cd "$script_dir/.." && pwd)/dist/bin/admission.js"
[[ -f "$admission_cli" ]] || die "admission CLI not found: $admission_cli (run npm run build, or pass --admission-cli)"

if [[ -z "$database" ]]; then
  hermes_home="${HERMES_HOME:-}"
  [[ -n "$hermes_home" ]] || hermes_home="$HOME/.hermes"
  [[ "$hermes_home" == "~" ]] && hermes_home="$HOME"
  [[ "$hermes_home" == "~/"* ]] && hermes_home="$HOME/${hermes_home#"~/"}"
  database="${hermes_home%/}/gateway-jobs.sqlite3"
fi
[[ -f "$database" ]] || die "job database not found: $database (pass --database)"

# Runs the admission CLI with node. The owner token goes by file (--owner-token-file, which the CLI
# checks the same way), so it never shows on a command line in ps.
# Usage: admission WITH_TOKEN(0|1) SUBCOMMAND ARGS...
admission() {
  local with_token="$1"; shift
  if [[ "$with_token" == 1 ]]; then
    "$node_bin" "$admission_cli" "$@" --owner-token-file "$token_file" </dev/null
  else
    "$node_bin" "$admission_cli" "$@" </dev/null
  fi
}

resume_admission() { # reopens admission; returns the CLI's status
  local out rc=0
  out="$(admission 1 resume --database "$database" 2>&1)" || rc=$?
  # Quiet when it simply worked; anything else (e.g. "admission was not paused") is shown.
  [[ "$rc" == 0 && "$out" == resumed ]] || show "$out"
  return "$rc"
}

if [[ "$resume_only" == 1 ]]; then
  step "resume: reopening job admission on $database"
  resume_admission || die_with "$EXIT_FAILED" "resume failed; admission is unchanged (see the message above)"
  exit 0
fi

command -v systemctl >/dev/null 2>&1 || die "systemctl not found on PATH"
systemctl_cmd=(systemctl)
[[ "$mode" == user ]] && systemctl_cmd+=(--user)

# GET over loopback: prints the body, a newline and the HTTP status (000 when unreachable).
# curl when present (ignoring any proxy settings), node's http client otherwise.
http_get() {
  if command -v curl >/dev/null 2>&1; then
    curl -s --noproxy '*' --proto =http --max-time 5 -w '\n%{http_code}' -- "$1" 2>/dev/null || true
  else
    "$node_bin" -e '
      const req = require("node:http").get(process.argv[1], { timeout: 5000 }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (body += c));
        res.on("end", () => process.stdout.write(`${body}\n${res.statusCode}`));
        res.on("error", () => process.stdout.write("\n000"));
      });
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", () => process.stdout.write("\n000"));' "$1" 2>/dev/null || printf '\n000'
  fi
}

# Sets http_status and http_body.
fetch() {
  local out
  out="$(http_get "$1")"
  http_status="${out##*$'\n'}"
  http_body="${out%$'\n'*}"
  [[ "$out" == *$'\n'* ]] || http_body=""
}

# Reads /healthz; sets health (ok | unreachable | unmeasured), inflight_requests, inflight_native.
read_health() {
  local counters
  fetch "$url/healthz"
  if [[ "$http_status" != 200 ]]; then health=unreachable; return; fi
  counters="$(printf '%s' "$http_body" | "$node_bin" -e '
    let h;
    try { h = JSON.parse(require("node:fs").readFileSync(0, "utf8")); } catch { h = undefined; }
    const ok = (v) => Number.isSafeInteger(v) && v >= 0;
    process.stdout.write(h && ok(h.inflight_requests) && ok(h.inflight_native_calls) ? `${h.inflight_requests} ${h.inflight_native_calls}` : "unmeasured");' 2>/dev/null || echo unmeasured)"
  if [[ "$counters" == unmeasured ]]; then health=unmeasured; return; fi
  health=ok
  read -r inflight_requests inflight_native <<< "$counters"
}

# Interrupted after this point: say what state things were left in (never restart or cancel).
phase="preflight"
on_interrupt() {
  trap - INT TERM
  case "$phase" in
    preflight|snapshot) echo "$ME: interrupted during $phase; nothing was restarted and admission is unchanged" >&2 ;;
    restart|ready|resume) echo "$ME: interrupted during $phase; job admission stays PAUSED. Check ${systemctl_cmd[*]} status $unit, then reopen admission with: $0 --resume-only --owner-token-file $token_file --database $database" >&2 ;;
    *) echo "$ME: interrupted during $phase; the unit was NOT restarted and job admission may be left PAUSED. Reopen it with: $0 --resume-only --owner-token-file $token_file --database $database" >&2 ;;
  esac
  exit 130
}
trap on_interrupt INT TERM

read_health
case "$health" in
  unreachable)
    die_with "$EXIT_FAILED" "the gateway does not answer GET $url/healthz (status $http_status); nothing was done. This helper restarts a running gateway; check the unit with ${systemctl_cmd[*]} status $unit" ;;
  unmeasured)
    if [[ "$acknowledge_unmeasured" != 1 ]]; then
      die_with "$EXIT_UNMEASURED" "refusing: $url/healthz has no inflight_requests/inflight_native_calls counters, so this legacy gateway cannot be measured idle and a restart could cut off in-flight MCP requests or native calls. Nothing was done. Pass --acknowledge-unmeasured-inflight to restart it anyway."
    fi
    step "preflight: $url/healthz has no in-flight counters (legacy gateway); the operator acknowledged restarting it unmeasured" ;;
  ok)
    step "preflight: gateway at $url answers /healthz ($inflight_requests in-flight requests, $inflight_native in-flight native calls)" ;;
esac

# ---- 2. snapshot ---------------------------------------------------------------------------------
phase=snapshot
if [[ -z "$snapshot" ]]; then
  db_dir="$(dirname -- "$database")"
  db_name="$(basename -- "$database")"
  snapshot="$db_dir/${db_name%.sqlite3}.pre-restart-$(date -u +%Y%m%dT%H%M%SZ).sqlite3"
fi
step "snapshot: copying $database to $snapshot"
out="" rc=0
out="$(admission 0 snapshot --database "$database" --output "$snapshot" 2>&1)" || rc=$?
if [[ "$rc" != 0 ]]; then
  show "$out"
  die_with "$EXIT_FAILED" "snapshot failed (admission CLI exit $rc); nothing else was done, admission is unchanged"
fi

# ---- 3. drain ------------------------------------------------------------------------------------
phase=drain
drain_args=(drain --database "$database" --reason "restart of $unit by restart-gateway.sh")
[[ -z "$drain_timeout" ]] || drain_args+=(--timeout "$drain_timeout")
step "drain: pausing job admission and waiting ${drain_timeout:+up to $drain_timeout s }for active jobs to finish (none is cancelled)"
out="" rc=0
out="$(admission 1 "${drain_args[@]}" 2>&1)" || rc=$?
if [[ "$rc" == 3 ]]; then
  show "$out"
  die_with "$EXIT_DRAIN_TIMEOUT" "drain timed out: jobs are still active. ABORTED: the unit was NOT restarted, no job was cancelled, and job admission stays PAUSED. Investigate (node $admission_cli status --database $database), then rerun this helper with the same token file, or reopen admission with: $0 --resume-only --owner-token-file $token_file --database $database"
elif (( rc >= 128 )); then
  on_interrupt # the CLI was killed by a signal (e.g. Ctrl-C): say so, restart nothing
elif [[ "$rc" != 0 ]]; then
  show "$out"
  die_with "$EXIT_FAILED" "drain failed (admission CLI exit $rc); the unit was NOT restarted. Check the admission state with: node $admission_cli status --database $database (if this helper paused it, reopen with --resume-only)"
fi

# ---- 4. idle -------------------------------------------------------------------------------------
phase=idle
if [[ "$health" == unmeasured ]]; then
  step "idle: skipped: the legacy gateway has no in-flight counters (acknowledged with --acknowledge-unmeasured-inflight)"
else
  step "idle: waiting up to $idle_timeout s for $url/healthz to show 0 in-flight requests and 0 in-flight native calls"
  deadline=$(( SECONDS + idle_timeout ))
  while :; do
    read_health
    if [[ "$health" == ok && "$inflight_requests" == 0 && "$inflight_native" == 0 ]]; then break; fi
    if (( SECONDS >= deadline )); then
      case "$health" in
        ok) last="$inflight_requests in-flight requests, $inflight_native in-flight native calls" ;;
        unreachable) last="/healthz did not answer (status $http_status)" ;;
        *) last="/healthz stopped reporting the in-flight counters" ;;
      esac
      die_with "$EXIT_IDLE_TIMEOUT" "the gateway did not become idle within $idle_timeout s (last: $last). ABORTED: the unit was NOT restarted, and job admission stays PAUSED. Rerun this helper later with the same token file, or reopen admission with: $0 --resume-only --owner-token-file $token_file --database $database"
    fi
    sleep 0.5
  done
fi

# ---- 5. restart ----------------------------------------------------------------------------------
phase=restart
step "restart: ${systemctl_cmd[*]} restart $unit"
rc=0
"${systemctl_cmd[@]}" restart "$unit" || rc=$?
if [[ "$rc" != 0 ]]; then
  die_with "$EXIT_FAILED" "${systemctl_cmd[*]} restart $unit failed (exit $rc); job admission stays PAUSED. Check ${systemctl_cmd[*]} status $unit, then reopen admission with: $0 --resume-only --owner-token-file $token_file --database $database"
fi

# ---- 6. ready ------------------------------------------------------------------------------------
phase=ready
step "ready: waiting up to $ready_timeout s for $url/readyz to answer 200"
deadline=$(( SECONDS + ready_timeout ))
while :; do
  fetch "$url/readyz"
  [[ "$http_status" == 200 ]] && break
  if (( SECONDS >= deadline )); then
    die_with "$EXIT_NOT_READY" "the restarted gateway did not answer $url/readyz with 200 within $ready_timeout s (last status $http_status); job admission stays PAUSED. Check ${systemctl_cmd[*]} status $unit and $url/readyz, then reopen admission with: $0 --resume-only --owner-token-file $token_file --database $database"
  fi
  sleep 0.5
done

# ---- 7. resume -----------------------------------------------------------------------------------
phase=resume
step "resume: reopening job admission on $database"
resume_admission || die_with "$EXIT_FAILED" "the gateway restarted and is ready, but reopening admission failed; job admission stays PAUSED (see the message above)"
step "done: $unit restarted; snapshot at $snapshot"
