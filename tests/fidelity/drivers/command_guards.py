"""Hermes' command guards (tools/approval.py) on each case: {"command": "..."}. The verdict is the
one check_all_command_guards reaches for a local terminal with no user deny rules and no
SUDO_PASSWORD, before any prompt or outside scanner: detect_hardline_command (always blocked,
"hardline"), then _check_sudo_stdin_guard (always blocked, reported as "hardline" too), then
detect_dangerous_command (needs approval, "dangerous"), else "allow"; with the pattern key Hermes
names."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

os.environ.pop("SUDO_PASSWORD", None)

from tools.approval import (  # noqa: E402
    _check_sudo_stdin_guard,
    detect_dangerous_command,
    detect_hardline_command,
)


def handle(case, request):
    command = case["command"]
    hardline, description = detect_hardline_command(command)
    if hardline:
        return {"verdict": "hardline", "key": description}
    blocked, description = _check_sudo_stdin_guard(command)
    if blocked:
        return {"verdict": "hardline", "key": description}
    dangerous, key, _description = detect_dangerous_command(command)
    if dangerous:
        return {"verdict": "dangerous", "key": key}
    return {"verdict": "allow"}


serve(handle)
