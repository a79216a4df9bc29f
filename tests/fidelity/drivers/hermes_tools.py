"""Hermes' own execute_code hermes_tools module (tools/code_execution_tool.py) on each case:

- {"kind": "names"}: the public functions the generated stub defines (generate_hermes_tools_module
  with every sandbox tool enabled);
- {"kind": "signature", "function"}: that function's inspect.signature, parameter by parameter;
- {"kind": "call", "function", "kwargs"}: the function called from a script run by Hermes'
  execute_code (all call cases in one script, results printed base64-encoded);
- {"kind": "env", "names"}: for each of `names`, whether Hermes' _scrub_child_env keeps it of the
  request's `parent` environment (with Hermes' own env_passthrough, which reads config.yaml);
- {"kind": "injected"}: the names execute_code adds to a script's environment after scrubbing
  (name -> true);
- {"kind": "script-tz"}: TZ and HERMES_TIMEZONE as the script run by Hermes' execute_code sees them,
  and its local UTC offset (time.strftime("%z"))."""

import base64
import json
import os
import shutil
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from introspect import describe, public_functions  # noqa: E402
from oracle import serve  # noqa: E402

from tools.code_execution_tool import (  # noqa: E402
    SANDBOX_ALLOWED_TOOLS,
    execute_code,
    generate_hermes_tools_module,
)

try:  # Hermes 0.22 moved the child environment to tools/code_execution_env.py
    from tools.code_execution_env import _scrub_child_env  # noqa: E402
except ImportError:
    from tools.code_execution_tool import _scrub_child_env  # noqa: E402

ALL_TOOLS = sorted(SANDBOX_ALLOWED_TOOLS)


def stub_module():
    module = types.ModuleType("hermes_tools")
    # Only defined, never called here: the transport's connection is opened by the first call.
    exec(compile(generate_hermes_tools_module(ALL_TOOLS), "hermes_tools.py", "exec"), module.__dict__)
    return module


def run_script(code):
    result = json.loads(execute_code(code, task_id="fidelity-hermes-tools", enabled_tools=ALL_TOOLS))
    if result.get("status") != "success":
        raise RuntimeError(f"execute_code failed: {result}")
    return result["output"]


STATE = {}


def prepare(request):
    parent = request["parent"]
    calls = [[c["function"], c.get("kwargs", {})] for c in request["cases"] if c["kind"] == "call"]
    # The script writes its answer to a file: execute_code's output redaction would mask it.
    answer_file = os.path.join(tempfile.mkdtemp(prefix="fidelity-hermes-tools-"), "answer.json")
    script = "\n".join([
        "import base64, json, os, time, hermes_tools",
        f"calls = json.loads(base64.b64decode({base64.b64encode(json.dumps(calls).encode()).decode()!r}))",
        "out = [getattr(hermes_tools, name)(**kwargs) for name, kwargs in calls]",
        "tz = {'TZ': os.environ.get('TZ'), 'HERMES_TIMEZONE': os.environ.get('HERMES_TIMEZONE'), 'utc_offset': time.strftime('%z')}",
        f"open({answer_file!r}, 'w').write(json.dumps({{'out': out, 'env': sorted(os.environ), 'tz': tz}}))",
    ])
    # The script runs with the planted parent environment as Hermes' own process environment.
    keep = {k: os.environ[k] for k in ("HERMES_HOME",) if k in os.environ}
    os.environ.clear()
    os.environ.update(parent)
    os.environ.update(keep)
    run_script(script)
    with open(answer_file) as f:
        answer = json.load(f)
    shutil.rmtree(os.path.dirname(answer_file), ignore_errors=True)
    STATE["calls"] = answer["out"]
    STATE["tz"] = answer["tz"]
    # What execute_code added after scrubbing: the script's names that its own process did not have.
    STATE["injected"] = sorted(set(answer["env"]) - set(os.environ))
    STATE["scrubbed"] = _scrub_child_env(parent)
    STATE["module"] = stub_module()
    STATE["call_index"] = {c["id"]: i for i, c in enumerate(c for c in request["cases"] if c["kind"] == "call")}


def handle(case, request):
    if not STATE:
        prepare(request)
    kind = case["kind"]
    if kind == "names":
        return public_functions(STATE["module"])
    if kind == "signature":
        return describe(getattr(STATE["module"], case["function"]))
    if kind == "call":
        return STATE["calls"][STATE["call_index"][case["id"]]]
    if kind == "env":
        return {n: n in STATE["scrubbed"] for n in case["names"]}
    if kind == "injected":
        return {n: True for n in STATE["injected"]}
    if kind == "script-tz":
        return STATE["tz"]
    raise ValueError(f"unknown case kind {kind}")


serve(handle)
