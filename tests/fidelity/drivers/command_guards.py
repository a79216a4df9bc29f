"""Hermes' command guards on each case: {"command": "..."}. The verdict is the one
check_all_command_guards reaches for a local terminal with no SUDO_PASSWORD, before any prompt or
outside scanner, in Hermes' order: detect_hardline_command (always blocked, "hardline"); the
runtime self-delete floor where this Hermes has it (agent/runtime_self_protection.py
command_deletes_runtime, after 0.19: "hardline", keyed as tools/approval.py _floor_block names
it); _check_sudo_stdin_guard (always blocked, reported as "hardline" too); the operator's
approvals.deny rules of the config.yaml in HERMES_HOME (and the managed scope in
HERMES_MANAGED_DIR) through _match_user_deny_rule ("deny", keyed by the glob it names); then
detect_dangerous_command (needs approval, "dangerous"), else "allow"; with the key Hermes names."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

os.environ.pop("SUDO_PASSWORD", None)

from tools.approval import (  # noqa: E402
    _check_sudo_stdin_guard,
    _match_user_deny_rule,
    detect_dangerous_command,
    detect_hardline_command,
)

try:  # after 0.19 only
    from agent.runtime_self_protection import command_deletes_runtime
except ImportError:
    command_deletes_runtime = None


def handle(case, request):
    command = case["command"]
    hardline, description = detect_hardline_command(command)
    if hardline:
        return {"verdict": "hardline", "key": description}
    if command_deletes_runtime is not None:
        target = command_deletes_runtime(command)
        if target:
            return {"verdict": "hardline", "key": f"recursive/any delete of {target}"}
    blocked, description = _check_sudo_stdin_guard(command)
    if blocked:
        return {"verdict": "hardline", "key": description}
    rule = _match_user_deny_rule(command)
    if rule is not None:
        return {"verdict": "deny", "key": rule}
    dangerous, key, _description = detect_dangerous_command(command)
    if dangerous:
        return {"verdict": "dangerous", "key": key}
    return {"verdict": "allow"}


serve(handle)
