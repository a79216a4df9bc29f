"""Hermes' per-task file state on sequences of calls: each case's steps run in order under ONE task id
(read_file_tool, write_file_tool, patch_tool, search_tool of tools/file_tools.py with a fixed
task_id), the answers of its read_file/write_file/patch steps making up the case's answer. As Hermes'
dispatcher (model_tools.py handle_function_call) does before every tool but read_file and
search_files, notify_other_tool_call(task_id) runs before each other tool's step; `other_tool` is
that notification alone (a tool call whose own work touches no file). A step with "task": "other"
is another task's call. `touch` gives a file a modification time ten seconds later, its content
unchanged; `edit` rewrites a file from outside any task (`keep_mtime`: then puts its old
modification time back). The test gives every path already absolute."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from model_tools import _READ_SEARCH_TOOLS  # noqa: E402
from tools.file_tools import patch_tool, read_file_tool, search_tool, write_file_tool  # noqa: E402

try:  # later releases keep the read tracker in its own module
    from tools.file_tools_read_tracking import notify_other_tool_call  # noqa: E402
except ImportError:
    from tools.file_tools import notify_other_tool_call  # noqa: E402

TOOLS = {"read_file": read_file_tool, "write_file": write_file_tool, "patch": patch_tool, "search_files": search_tool}


def handle(case, request):
    task_id = f"fidelity-file-state-{case['id']}"
    answers = []
    for step in case["steps"]:
        if "touch" in step:
            st = os.stat(step["touch"])
            os.utime(step["touch"], ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))
            continue
        if "edit" in step:
            st = os.stat(step["edit"])
            with open(step["edit"], "w", encoding="utf-8") as f:
                f.write(step["content"])
            if step.get("keep_mtime"):
                os.utime(step["edit"], ns=(st.st_atime_ns, st.st_mtime_ns))
            continue
        task = task_id if step.get("task", "same") == "same" else f"{task_id}-other"
        if "other_tool" in step:
            notify_other_tool_call(task)
            continue
        if step["tool"] not in _READ_SEARCH_TOOLS:
            notify_other_tool_call(task)
        result = json.loads(TOOLS[step["tool"]](task_id=task, **step["args"]))
        if step["tool"] != "search_files":
            answers.append(result)
    return answers


serve(handle)
