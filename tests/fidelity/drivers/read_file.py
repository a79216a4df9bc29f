"""Hermes' read_file (tools/file_tools.py read_file_tool) on each case: {"args": {...}} with the path
already absolute. Each case reads under a task id of its own, so Hermes' read de-duplication
("file unchanged since your last read") never carries over from one case to the next."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from tools.file_tools import read_file_tool  # noqa: E402


def handle(case, request):
    return json.loads(read_file_tool(task_id=f"fidelity-{case['id']}", **case["args"]))


serve(handle)
