"""Hermes' `process` tool (tools/process_registry.py, its registered handler _handle_process) on
background processes started by Hermes' terminal (tools/terminal_tool.py terminal_tool,
background=true, local backend) in the case's directory, on a pseudo-terminal when the case says
`pty`, with persist_on_release=true where Hermes has it (the gateway's processes are jobs, which
outlive their session). Each case: {"dir", "command", "pty", "steps", "action"}; a step is a process
action (its answer dropped) or {"sleep": seconds}; `session_id` is filled in with the case's process
unless the action gives its own (null: left out; {"prefix": n}: the process id's first n
characters). The answer is {"process": the started id, "result": the
last action's answer}. Every process left running is killed at the end.

The case's task id is its session key too (tools/approval.py set_current_session_key, as a Hermes
session sets it), so action=list shows the case's own process, by the session filter of
list_sessions. Hermes starts a background command in an interactive login shell without a terminal,
whose start-up complaints ("no job control in this shell", ...) _clean_shell_noise is meant to drop
from the first chunk read; when they arrive in two chunks the second survives, so the driver applies
that same cleaner to the buffer before each action (and to the output a wait answers with),
making the answer independent of read timing."""

import inspect
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

try:  # Hermes 0.22 moved the session key to tools/approval_context.py
    from tools.approval_context import reset_current_session_key, set_current_session_key  # noqa: E402
except ImportError:
    from tools.approval import reset_current_session_key, set_current_session_key  # noqa: E402
from model_tools import coerce_tool_args  # noqa: E402
from tools.registry import registry  # noqa: E402
from tools.process_registry import ProcessRegistry, _handle_process, process_registry  # noqa: E402
from tools.terminal_tool import terminal_tool  # noqa: E402

# The gateway's background processes are jobs, which outlive their session: Hermes'
# persist_on_release=true, where its terminal_tool has it.
PERSIST = {"persist_on_release": True} if "persist_on_release" in inspect.signature(terminal_tool).parameters else {}


# The name Hermes registers its process tool under (0.19: process; 0.22: process_manage).
PROCESS_TOOL = "process_manage" if registry.get_schema("process_manage") else "process"


def act(args, proc_id, task):
    if "sleep" in args:
        time.sleep(args["sleep"])
        return None
    session = process_registry.get(proc_id)
    if session is not None:
        with session._lock:
            session.output_buffer = ProcessRegistry._clean_shell_noise(session.output_buffer)
    call = dict(args)
    if "session_id" not in call:
        call["session_id"] = proc_id
    elif call["session_id"] is None:
        del call["session_id"]
    elif isinstance(call["session_id"], dict):  # {"prefix": n}: the first n characters of the process id
        call["session_id"] = proc_id[: call["session_id"]["prefix"]]
    # list filters by the session key (set in handle); the other actions name their process.
    # Hermes' dispatch coercion (model_tools.py coerce_tool_args) first, as handle_function_call applies it.
    call = coerce_tool_args(PROCESS_TOOL, call)
    answer = json.loads(_handle_process(call, task_id=None if call.get("action") == "list" else task))
    # An action that waits (wait) reads output that arrived after the cleaning above: the same
    # cleaner on the output it answers with.
    for field in ("output", "output_preview"):
        if isinstance(answer.get(field), str):
            answer[field] = ProcessRegistry._clean_shell_noise(answer[field])
    if call.get("action") == "list":
        # spawn_local starts the reader thread before it files the session as running, so a command
        # that has already ended by then stays in both the running and the finished table and is
        # listed twice under one id: each id is kept once (its first entry).
        seen = set()
        answer["processes"] = [p for p in answer["processes"] if not (p["session_id"] in seen or seen.add(p["session_id"]))]
    return answer


def handle(case, request):
    task = f"fidelity-{case['id']}"
    key = set_current_session_key(task)
    try:
        return run(case, task)
    finally:
        reset_current_session_key(key)


def run(case, task):
    started = json.loads(terminal_tool(case["command"], background=True, task_id=task, workdir=case["dir"], pty=case.get("pty", False), **PERSIST))
    proc_id = started["session_id"]
    try:
        for step in case.get("steps", []):
            act(step, proc_id, task)
        return {"process": proc_id, "result": act(case["action"], proc_id, task)}
    finally:
        session = process_registry.get(proc_id)
        if session is not None and not session.exited:
            process_registry.kill_process(proc_id)


serve(handle)
