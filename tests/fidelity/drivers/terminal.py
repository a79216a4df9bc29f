"""Hermes' foreground terminal (tools/terminal_tool.py, local backend), called through its registered
handler _handle_terminal as Hermes' dispatch calls it (so its argument rules apply: the notify
mapping, the foreground refusals, a foreground heartbeat dropped), on each case:
{"dir", "before": [commands or argument objects], "args": {...}}. Each case runs under a task id of
its own, whose first command is `cd` into the case's directory (so its session cwd record starts
there, as the gateway's fresh session does); the `before` calls run next and their answers are
dropped; the answer is that of `args`. Every call's arguments first go through Hermes' dispatch
coercion (model_tools.py coerce_tool_args, which its handle_function_call applies before the
handler), so a case sending "60" for timeout compares what Hermes' dispatch makes of it."""

import json
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from model_tools import coerce_tool_args  # noqa: E402
from tools.terminal_tool import _handle_terminal  # noqa: E402


def run(args, task):
    answer = json.loads(_handle_terminal(coerce_tool_args("terminal", dict(args)), task_id=task))
    # Hermes names an output's spill file by the second, its pid and the low 16 bits of id(proc)
    # (tools/environments/base_output.py _new_output_collector) and creates it exclusively: a
    # second truncated output within the same second, whose Popen reuses the first one's address,
    # finds the name taken and is answered without full_output_path. Cases run back to back in
    # one process, so each spill file is removed once its answer is in (its text is not compared).
    spill = answer.get("full_output_path") if isinstance(answer, dict) else None
    if spill:
        try:
            os.unlink(spill)
        except OSError:
            pass
    return answer


def handle(case, request):
    task = f"fidelity-{case['id']}"
    run({"command": f"cd {shlex.quote(case['dir'])}"}, task)
    for before in case.get("before", []):
        run(before if isinstance(before, dict) else {"command": before}, task)
    return run(case["args"], task)


serve(handle)
