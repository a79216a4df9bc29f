"""Hermes' write_file (tools/file_tools.py write_file_tool) on each case: {"args": {...}} with the path
already absolute. Each case writes under a task id of its own, so no staleness or read state carries
over from one case to the next. The test reads the resulting files back itself."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from tools.file_tools import write_file_tool  # noqa: E402


def handle(case, request):
    return json.loads(write_file_tool(task_id=f"fidelity-{case['id']}", **case["args"]))


serve(handle)
