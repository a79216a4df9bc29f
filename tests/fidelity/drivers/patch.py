"""Hermes' patch (tools/file_tools.py patch_tool) on each case: {"args": {...}} with the path (replace
mode) already absolute and the V4A patch text already naming the case's own directory. Each case
patches under a task id of its own, so the consecutive-failure hint ("This is failure #N") and the
staleness state never carry over from one case to the next. The test reads the resulting files back
itself. The arguments first go through Hermes' dispatch coercion (model_tools.py coerce_tool_args,
as handle_function_call applies it), so a case sending "true" for replace_all compares what Hermes'
dispatch makes of it."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402
from schema import schema_summary  # noqa: E402

from model_tools import coerce_tool_args  # noqa: E402
from tools.file_tools import patch_tool  # noqa: E402


def handle(case, request):
    if case.get("schema"):
        return schema_summary("patch")
    return json.loads(patch_tool(task_id=f"fidelity-{case['id']}", **coerce_tool_args("patch", dict(case["args"]))))


serve(handle)
