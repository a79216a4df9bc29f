"""Hermes' search_files (tools/file_tools.py _handle_search_files, the registry's handler: search_tool,
and so tools/file_operations.py ShellFileOperations.search) on each case: {"args": {...}, "ripgrep": bool} with the path already
absolute. Each case searches under a task id of its own, so Hermes' repeated-search guard never
carries over from one case to the next.

"ripgrep": false answers as Hermes does on a host without ripgrep (its grep / find fallbacks).
Hermes' local terminal always appends the standard system directories to PATH, so rg in /usr/bin
cannot be hidden by PATH alone; the case instead sets what ShellFileOperations._has_command found
for "rg" for the length of its search and, where Hermes resolves ripgrep itself (0.22:
SearchMixin._resolve_command, bundled rg first), answers None for "rg" there too; both are
forgotten afterwards: the file operations are shared between task ids.

search_tool returns JSON; Hermes 0.19 appends "\n\n[Hint: ...]" when the results were truncated
(0.22 puts `_hint` in the JSON): the answer is the JSON object, with that hint (when present) as
"_hint". The arguments first go through Hermes' dispatch coercion (model_tools.py coerce_tool_args,
as handle_function_call applies it)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from model_tools import coerce_tool_args  # noqa: E402
from tools.file_tools import _get_file_ops, _handle_search_files  # noqa: E402

HINT = "\n\n[Hint: "


def handle(case, request):
    task_id = f"fidelity-{case['id']}"
    ops = _get_file_ops(task_id)
    if not case.get("ripgrep", True):
        ops._command_cache["rg"] = False
        if hasattr(ops, "_resolve_command"):
            _orig = type(ops)._resolve_command
            ops._resolve_command = lambda cmd, _o=_orig, _s=ops: None if cmd == "rg" else _o(_s, cmd)
    try:
        raw = _handle_search_files(coerce_tool_args("search_files", dict(case["args"])), task_id=task_id)
    finally:
        ops._command_cache.pop("rg", None)
        ops.__dict__.pop("_resolve_command", None)
    body, sep, hint = raw.partition(HINT)
    answer = json.loads(body)
    if sep:
        answer["_hint"] = HINT.lstrip("\n") + hint
    return answer


serve(handle)
