#!/usr/bin/env bash
# Render the hermes-mcp-gateway systemd units (service + workload slices) for a user or a system
# install, or (--remove) removes exactly the unit files it renders. Never changes a unit's state
# itself (no start, stop, enable, disable, daemon-reload): it prints the command for the operator.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/install-units.sh (--user | --system) [options]
       scripts/install-units.sh (--user | --system) --remove [--dest DIR] [--dry-run]

Render systemd/hermes-mcp-gateway.service.in, hermesjobs.slice and hermesshort.slice (and, with
--tunnel-client, systemd/tunnel-client.service.in for OpenAI's Secure MCP Tunnel client).

Modes (exactly one):
  --user              install into ~/.config/systemd/user/ (WantedBy=default.target)
  --system            install into /etc/systemd/system/ (WantedBy=multi-user.target),
                      adding User=/Group= of the invoking user (or --user-name)

Options:
  --dest DIR          render into DIR instead of the mode's default directory
  --dry-run           print the rendered units to stdout, write nothing
  --remove            remove the units this script renders (hermes-mcp-gateway.service,
                      hermesjobs.slice, hermesshort.slice, tunnel-client.service) from the
                      mode's directory (or --dest DIR): only files that carry this script's
                      header, and only once the services are neither active nor enabled
                      (asked read-only with systemctl is-active / is-enabled when systemctl is
                      there); with --dry-run, only print what it would remove
  --user-name NAME    system mode: run the service as NAME (default: invoking user,
                      $SUDO_USER when run through sudo); its primary group is used for Group=
  --group NAME        system mode: override Group=
  --hermes-home DIR   HERMES_HOME (default: $HERMES_HOME or ~/.hermes of the service user)
  --state-dir DIR     HERMES_MCP_STATE_DIR (default: %t/hermes-mcp-gateway, the unit's
                      RuntimeDirectory; a custom DIR must exist before the service starts)
  --roots LIST        colon-separated allowed roots (default: $HERMES_MCP_ROOTS or ~/work)
  --node PATH         node binary (default: command -v node)
  --bridge-env FILE   the hermes-mcp-bridge .env (default: $HERMES_MCP_BRIDGE_ENV): sets
                      HERMES_MCP_BRIDGE_ENV in the unit and adds the bridge's TASKS_DIR and
                      AUDIT_LOG directory to ReadWritePaths (read as the gateway reads the file;
                      needs a built dist/)
  --tunnel-client PATH  also render tunnel-client.service running PATH (openai/tunnel-client),
                      ordered after the gateway; system mode runs it as a dynamic user
  --tunnel-env FILE   its EnvironmentFile (CONTROL_PLANE_API_KEY, CONTROL_PLANE_TUNNEL_ID, ...;
                      mode 0600). Default: /etc/tunnel-client/hermes-mcp-gateway.env (system),
                      ~/.config/tunnel-client/hermes-mcp-gateway.env (user)
  -h, --help          show this help

Paths must be absolute and must not contain whitespace or '@'.
USAGE
}

die() { echo "install-units.sh: $*" >&2; exit 2; }

mode=""
dest=""
dry_run=0
remove=0
other_options=0
user_name=""
group_name=""
hermes_home="${HERMES_HOME:-}"
state_dir=""
roots="${HERMES_MCP_ROOTS:-}"
node_bin=""
bridge_env="${HERMES_MCP_BRIDGE_ENV:-}"
tunnel_client=""
tunnel_env=""

need_arg() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --user) [[ -z "$mode" || "$mode" == user ]] || die "--user and --system are exclusive"; mode=user; shift ;;
    --system) [[ -z "$mode" || "$mode" == system ]] || die "--user and --system are exclusive"; mode=system; shift ;;
    --dest) need_arg "$@"; dest="$2"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    --remove) remove=1; shift ;;
    --user-name) need_arg "$@"; user_name="$2"; other_options=1; shift 2 ;;
    --group) need_arg "$@"; group_name="$2"; other_options=1; shift 2 ;;
    --hermes-home) need_arg "$@"; hermes_home="$2"; other_options=1; shift 2 ;;
    --state-dir) need_arg "$@"; state_dir="$2"; other_options=1; shift 2 ;;
    --roots) need_arg "$@"; roots="$2"; other_options=1; shift 2 ;;
    --node) need_arg "$@"; node_bin="$2"; other_options=1; shift 2 ;;
    --bridge-env) need_arg "$@"; bridge_env="$2"; other_options=1; shift 2 ;;
    --tunnel-client) need_arg "$@"; tunnel_client="$2"; other_options=1; shift 2 ;;
    --tunnel-env) need_arg "$@"; tunnel_env="$2"; other_options=1; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

[[ -n "$mode" ]] || { usage >&2; die "choose --user or --system"; }

# --remove: the files this script writes, each only when its first line is the header this script's
# sources give it (a file of the same name that someone else wrote stays), and never while a
# service is still running or enabled (its unit file gone, systemd would keep a unit it can no longer
# stop or disable cleanly).
if [[ "$remove" == 1 ]]; then
  [[ "$other_options" == 0 ]] || die "--remove takes only --user|--system, --dest and --dry-run"
  if [[ "$mode" == system ]]; then
    dest="${dest:-/etc/systemd/system}"; systemctl_cmd=(systemctl)
  else
    dest="${dest:-${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user}"; systemctl_cmd=(systemctl --user)
  fi
  ours=()
  for f in hermes-mcp-gateway.service tunnel-client.service hermesjobs.slice hermesshort.slice; do
    [[ -e "$dest/$f" || -L "$dest/$f" ]] || continue
    first="$(head -n 1 "$dest/$f" 2>/dev/null || true)"
    if [[ -f "$dest/$f" && ! -L "$dest/$f" && "$first" == "# $f -- "* ]]; then
      ours+=("$f")
    else
      echo "note: $dest/$f was not written by this script (no '# $f -- ' header); left in place" >&2
    fi
  done
  if [[ ${#ours[@]} -eq 0 ]]; then
    echo "nothing to remove in $dest"
    exit 0
  fi
  if command -v systemctl >/dev/null 2>&1; then
    busy=()
    for f in "${ours[@]}"; do
      [[ "$f" == *.service ]] || continue
      active="$("${systemctl_cmd[@]}" is-active "$f" 2>/dev/null || true)"
      enabled="$("${systemctl_cmd[@]}" is-enabled "$f" 2>/dev/null || true)"
      [[ "$active" != active && "$active" != activating && "$active" != reloading && "$enabled" != enabled ]] || busy+=("${f%.service}")
    done
    if [[ ${#busy[@]} -gt 0 ]]; then
      die "${busy[*]} is still active or enabled; first run: ${systemctl_cmd[*]} disable --now ${busy[*]}"
    fi
  fi
  for f in "${ours[@]}"; do
    if [[ "$dry_run" == 1 ]]; then echo "would remove $dest/$f"; else rm -f "$dest/$f"; echo "removed $dest/$f"; fi
  done
  echo "Run (not executed by this script):"
  echo "  ${systemctl_cmd[*]} daemon-reload"
  exit 0
fi

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="$(cd "$script_dir/.." && pwd)"
template="$prefix/systemd/hermes-mcp-gateway.service.in"
[[ -r "$template" ]] || die "template not found: $template"

# The account the service runs as, and its home (for ~ defaults).
if [[ "$mode" == system ]]; then
  if [[ -z "$user_name" ]]; then
    user_name="${SUDO_USER:-$(id -un)}"
  fi
  if [[ -z "$group_name" ]]; then
    group_name="$(id -gn "$user_name" 2>/dev/null || true)"
    [[ -n "$group_name" ]] || die "cannot find the primary group of '$user_name'; pass --group"
  fi
  svc_home="$(getent passwd "$user_name" 2>/dev/null | cut -d: -f6 || true)"
  [[ -n "$svc_home" ]] || svc_home="$HOME"
else
  [[ -z "$user_name" && -z "$group_name" ]] || die "--user-name/--group only apply to --system"
  svc_home="$HOME"
fi

expand_home() { local p="$1"; [[ "$p" == "~" ]] && p="$svc_home"; [[ "$p" == "~/"* ]] && p="$svc_home/${p#"~/"}"; printf '%s' "$p"; }

check_path() { # name value [allow %-specifier prefix]
  local name="$1" v="$2"
  [[ "$v" =~ [[:space:]@] ]] && die "$name must not contain whitespace or '@': $v"
  [[ "$v" == /* || "$v" == %t/* ]] || die "$name must be an absolute path: $v"
  return 0
}

[[ -n "$node_bin" ]] || node_bin="$(command -v node || true)"
[[ -n "$node_bin" ]] || die "node not found on PATH; pass --node"
check_path node "$node_bin"
check_path prefix "$prefix"

[[ -n "$hermes_home" ]] || hermes_home='~/.hermes'
hermes_home="$(expand_home "$hermes_home")"
hermes_home="${hermes_home%/}"
check_path HERMES_HOME "$hermes_home"

[[ -n "$state_dir" ]] || state_dir='%t/hermes-mcp-gateway'
state_dir="$(expand_home "$state_dir")"
check_path state-dir "$state_dir"

roots_colon=""
roots_rw=""
[[ -n "$roots" ]] || roots='~/work'
IFS=: read -r -a root_list <<< "$roots"
for r in "${root_list[@]}"; do
  [[ -n "$r" ]] || continue
  r="$(expand_home "$r")"
  check_path root "$r"
  roots_colon+="${roots_colon:+:}$r"
  roots_rw+="${roots_rw:+ }-$r"
done
[[ -n "$roots_colon" ]] || die "no roots given"

# The hermes-mcp-bridge profile writes its tasks and audit log wherever its .env says; outside
# HERMES_HOME, ProtectHome=read-only would make them read-only. The paths are resolved by the
# gateway's own reader (dist/scripts/bridge-paths.js), so the unit and the service agree.
bridge_env_line="# No hermes-mcp-bridge profile (render with --bridge-env FILE to add one)."
bridge_rw=""
bridge_notes=()
if [[ -n "$bridge_env" ]]; then
  bridge_env="$(expand_home "$bridge_env")"
  check_path bridge-env "$bridge_env"
  paths_js="$prefix/dist/scripts/bridge-paths.js"
  [[ -r "$paths_js" ]] || die "$paths_js not found; run npm run build first"
  bridge_paths="$("$node_bin" "$paths_js" "$bridge_env" "$hermes_home" "$svc_home")" || die "cannot use --bridge-env $bridge_env (see above)"
  bridge_env_line="Environment=HERMES_MCP_BRIDGE_ENV=$bridge_env"
  while IFS='=' read -r key value; do
    [[ "$key" == tasks_dir || "$key" == audit_dir ]] || continue
    check_path "bridge $key" "$value"
    bridge_rw+=" -$value"
    if [[ "$value" != "$hermes_home" && "$value" != "$hermes_home"/* && ! -d "$value" ]]; then
      bridge_notes+=("note: create $value (mode 0700, owned by the service user) before starting; outside HERMES_HOME the gateway cannot create it")
    fi
  done <<< "$bridge_paths"
fi

if [[ "$mode" == system ]]; then
  [[ "$user_name" =~ ^[a-zA-Z_][a-zA-Z0-9_.-]*$ ]] || die "invalid user name: $user_name"
  [[ "$group_name" =~ ^[a-zA-Z_][a-zA-Z0-9_.-]*$ ]] || die "invalid group name: $group_name"
  user_group=$'# Runs as the account that owns HERMES_HOME, not as root.\n'"User=$user_name"$'\n'"Group=$group_name"
  # An enforced resource policy runs jobs in `systemd-run --user --scope` units: a system service
  # reaches its account's user manager only through that manager's bus (the account needs
  # `loginctl enable-linger`). Without it the gateway reports the policy unenforceable, never silent.
  svc_uid="$(id -u "$user_name" 2>/dev/null || true)"
  if [[ "$svc_uid" =~ ^[0-9]+$ ]]; then
    user_group+=$'\n'"Environment=XDG_RUNTIME_DIR=/run/user/$svc_uid"$'\n'"Environment=DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$svc_uid/bus"
  else
    user_group+=$'\n'"# ($user_name has no uid on this host yet: add Environment=XDG_RUNTIME_DIR=/run/user/<uid> and DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/<uid>/bus for systemd-run --user)"
  fi
  wanted_by="multi-user.target"
  default_dest="/etc/systemd/system"
  systemctl_cmd="systemctl"
else
  user_group="# User unit: runs as the user whose systemd --user manager loads it."
  wanted_by="default.target"
  default_dest="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"
  systemctl_cmd="systemctl --user"
fi
dest="${dest:-$default_dest}"

# OpenAI's tunnel client: its own (dynamic, in system mode) account, its secrets in its own file.
tunnel_notes=()
if [[ -n "$tunnel_client" ]]; then
  tunnel_client="$(expand_home "$tunnel_client")"
  check_path tunnel-client "$tunnel_client"
  [[ -x "$tunnel_client" ]] || tunnel_notes+=("note: $tunnel_client is not an executable file yet; install tunnel-client there before starting")
  if [[ -z "$tunnel_env" ]]; then
    if [[ "$mode" == system ]]; then tunnel_env=/etc/tunnel-client/hermes-mcp-gateway.env; else tunnel_env="${XDG_CONFIG_HOME:-$svc_home/.config}/tunnel-client/hermes-mcp-gateway.env"; fi
  fi
  tunnel_env="$(expand_home "$tunnel_env")"
  check_path tunnel-env "$tunnel_env"
  if [[ -e "$tunnel_env" ]]; then
    perms="$(stat -c %a "$tunnel_env")"
    (( (8#$perms & 8#077) == 0 )) || die "$tunnel_env holds the tunnel's API key but is mode $perms: chmod 600 $tunnel_env"
  else
    tunnel_notes+=("note: create $tunnel_env (mode 0600) with CONTROL_PLANE_API_KEY= and CONTROL_PLANE_TUNNEL_ID= before starting (see docs/connect-chatgpt.md, Secure MCP Tunnel)")
  fi
elif [[ -n "$tunnel_env" ]]; then
  die "--tunnel-env needs --tunnel-client"
fi
if [[ "$mode" == system ]]; then
  tunnel_user=$'# Its own transient account: it needs none of the gateway files.\nUser=hermes-tunnel\nDynamicUser=yes'
else
  tunnel_user="# User unit: runs as the user whose systemd --user manager loads it."
fi

render_service() { # [template]
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    if [[ "$line" == "@USER_GROUP@" ]]; then printf '%s\n' "$user_group"; continue; fi
    if [[ "$line" == "@TUNNEL_USER@" ]]; then printf '%s\n' "$tunnel_user"; continue; fi
    line="${line//@TUNNEL_CLIENT@/$tunnel_client}"
    line="${line//@TUNNEL_ENV@/$tunnel_env}"
    if [[ "$line" == "@BRIDGE_ENV@" ]]; then printf '%s\n' "$bridge_env_line"; continue; fi
    line="${line//@BRIDGE_RW@/$bridge_rw}"
    line="${line//@NODE@/$node_bin}"
    line="${line//@PREFIX@/$prefix}"
    line="${line//@HERMES_HOME@/$hermes_home}"
    line="${line//@STATE_DIR@/$state_dir}"
    line="${line//@ROOTS_COLON@/$roots_colon}"
    line="${line//@ROOTS_RW@/$roots_rw}"
    line="${line//@ROOTS@/$roots_rw}"
    line="${line//@WANTED_BY@/$wanted_by}"
    printf '%s\n' "$line"
  done < "${1:-$template}"
}

check_rendered() { # text
  if grep -qE '@[A-Z_]+@' <<< "$1"; then
    die "unsubstituted placeholder left in the rendered unit: $(grep -oE '@[A-Z_]+@' <<< "$1" | sort -u | tr '\n' ' ')"
  fi
}

rendered="$(render_service)"
check_rendered "$rendered"
tunnel_rendered=""
if [[ -n "$tunnel_client" ]]; then
  tunnel_template="$prefix/systemd/tunnel-client.service.in"
  [[ -r "$tunnel_template" ]] || die "template not found: $tunnel_template"
  tunnel_rendered="$(render_service "$tunnel_template")"
  check_rendered "$tunnel_rendered"
fi

files=(hermes-mcp-gateway.service hermesjobs.slice hermesshort.slice)
[[ -z "$tunnel_client" ]] || files+=(tunnel-client.service)

if [[ "$dry_run" == 1 ]]; then
  echo "# --- $dest/hermes-mcp-gateway.service"
  printf '%s\n' "$rendered"
  for f in hermesjobs.slice hermesshort.slice; do
    echo "# --- $dest/$f"
    cat "$prefix/systemd/$f"
  done
  if [[ -n "$tunnel_client" ]]; then
    echo "# --- $dest/tunnel-client.service"
    printf '%s\n' "$tunnel_rendered"
  fi
else
  mkdir -p "$dest"
  tmp="$(mktemp "$dest/.hermes-mcp-gateway.service.XXXXXX")"
  printf '%s\n' "$rendered" > "$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$dest/hermes-mcp-gateway.service"
  for f in hermesjobs.slice hermesshort.slice; do
    install -m 0644 "$prefix/systemd/$f" "$dest/$f"
  done
  if [[ -n "$tunnel_client" ]]; then
    tmp="$(mktemp "$dest/.tunnel-client.service.XXXXXX")"
    printf '%s\n' "$tunnel_rendered" > "$tmp"
    chmod 0644 "$tmp"
    mv -f "$tmp" "$dest/tunnel-client.service"
  fi
  for f in "${files[@]}"; do echo "wrote $dest/$f"; done
fi

if [[ "$state_dir" != %t/* ]]; then
  echo "note: create $state_dir (mode 0700, owned by the service user) before starting; ProtectSystem=strict will not let the gateway create it" >&2
fi
for n in ${bridge_notes[@]+"${bridge_notes[@]}"} ${tunnel_notes[@]+"${tunnel_notes[@]}"}; do echo "$n" >&2; done
echo "Run (not executed by this script):"
echo "  $systemctl_cmd daemon-reload && $systemctl_cmd enable --now hermes-mcp-gateway${tunnel_client:+ tunnel-client}"
