"""The steps a file-editing case takes before its compared call (tests/fidelity/edit-files.ts Step):
each Hermes tool call under the case's task id, or another task's with "task": "other", and
"touch": the case's file gets a modification time ten seconds later, its content unchanged."""

import os

from tools.file_tools import patch_tool, read_file_tool, write_file_tool

TOOLS = {"read_file": read_file_tool, "write_file": write_file_tool, "patch": patch_tool}


def run_steps(case, task_id):
    for step in case.get("steps") or []:
        if step.get("touch"):
            path = case["args"]["path"]
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))
            continue
        task = task_id if step.get("task", "same") == "same" else f"{task_id}-other"
        TOOLS[step["tool"]](task_id=task, **step["args"])
