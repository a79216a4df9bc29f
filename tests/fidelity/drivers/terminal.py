"""Hermes' foreground terminal (tools/terminal_tool.py terminal_tool, local backend) on each case:
{"dir", "before": [commands], "args": {...}}. Each case runs under a task id of its own, whose first
command is `cd` into the case's directory (so its session cwd record starts there, as the gateway's
fresh session does); the `before` commands run next and their answers are dropped; the answer is
that of `args`."""

import json
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from tools.terminal_tool import terminal_tool  # noqa: E402


def handle(case, request):
    task = f"fidelity-{case['id']}"
    terminal_tool(f"cd {shlex.quote(case['dir'])}", task_id=task)
    for command in case.get("before", []):
        terminal_tool(command, task_id=task)
    return json.loads(terminal_tool(task_id=task, **case["args"]))


serve(handle)
