"""Hermes' read_file (tools/file_tools.py read_file_tool) on each case: {"args": {...}} with the path
already absolute. Each case reads under a task id of its own, so Hermes' read de-duplication
("file unchanged since your last read") never carries over from one case to the next. The arguments
first go through Hermes' dispatch coercion (model_tools.py coerce_tool_args, as handle_function_call
applies it), so a case sending offset "1_0.0" compares what Hermes' dispatch makes of it."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from model_tools import coerce_tool_args  # noqa: E402
from tools.file_tools import read_file_tool  # noqa: E402


def handle(case, request):
    return json.loads(read_file_tool(task_id=f"fidelity-{case['id']}", **coerce_tool_args("read_file", dict(case["args"]))))


serve(handle)
