"""Hermes' skills tools (tools/skills_tool.py skills_list, skill_view) on each case:
{"tool": "skills_list" | "skill_view", "args": {...}, "home": its HERMES_HOME, "repeat": bool},
over that home's skills tree (Hermes resolves the skills directory from HERMES_HOME at each call).
A repeat case calls the handler Hermes registers for skill_view (_skill_view_with_bump, where a
repeat view is deduped) twice in one task and answers the second call."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from tools.skills_tool import _skill_view_with_bump, skill_view, skills_list  # noqa: E402


def handle(case, request):
    os.environ["HERMES_HOME"] = case["home"]
    args = case["args"]
    if case["tool"] == "skills_list":
        return json.loads(skills_list(**args))
    if case.get("repeat"):
        task = "fidelity-" + case["id"]
        _skill_view_with_bump(args, task_id=task)
        return json.loads(_skill_view_with_bump(args, task_id=task))
    return json.loads(skill_view(**args))


serve(handle)
