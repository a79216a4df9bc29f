"""Hermes' own schemas of its terminal and process tools (tools/terminal_tool.py TERMINAL_SCHEMA,
tools/process_registry.py PROCESS_SCHEMA: `process` in 0.19, `process_manage` since), as the model
sees them. Each case: {"tool": "terminal" | "process_manage", "property": name or absent}. A tool
case answers {"name", "description", "required", "additionalProperties"} (absent keys: null); a
property case answers {"present": true, ...the property's schema} or {"present": false}."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from tools.process_registry import PROCESS_SCHEMA  # noqa: E402
from tools.terminal_tool import TERMINAL_SCHEMA  # noqa: E402

SCHEMAS = {"terminal": TERMINAL_SCHEMA, "process_manage": PROCESS_SCHEMA}


def handle(case, request):
    schema = SCHEMAS[case["tool"]]
    parameters = schema["parameters"]
    if case.get("property") is None:
        return {
            "name": schema["name"],
            "description": schema.get("description"),
            "required": parameters.get("required"),
            "additionalProperties": parameters.get("additionalProperties"),
        }
    prop = parameters["properties"].get(case["property"])
    return {"present": False} if prop is None else {"present": True, **prop}


serve(handle)
