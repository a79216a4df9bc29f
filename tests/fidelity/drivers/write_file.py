"""Hermes' write_file (tools/file_tools.py write_file_tool) on each case: {"args": {...}, "steps": [...]}
with the path already absolute. Each case writes under a task id of its own, so no staleness or read
state carries over from one case to the next; its steps (steps.py: a read first, an earlier write or
patch, another task's, a touched file) run under that task id before the write. The test reads the
resulting files back itself. The arguments first go through Hermes' dispatch coercion (model_tools.py
coerce_tool_args, as handle_function_call applies it)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402
from schema import schema_summary  # noqa: E402

from model_tools import coerce_tool_args  # noqa: E402
from steps import run_steps  # noqa: E402

from tools.file_tools import write_file_tool  # noqa: E402


def handle(case, request):
    if case.get("schema"):
        return schema_summary("write_file")
    task_id = f"fidelity-{case['id']}"
    run_steps(case, task_id)
    return json.loads(write_file_tool(task_id=task_id, **coerce_tool_args("write_file", dict(case["args"]))))


serve(handle)
