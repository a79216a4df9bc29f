"""Hermes' browser tools (tools/browser_tool.py browser_navigate ... browser_console) in Camofox mode
(tools/browser_camofox.py: CAMOFOX_URL set, so every tool goes to Camofox' REST API), one case
after another on the same Camofox server, as the model would call them: {"tool", "args", "task"}.
A case's `task` is the Hermes task id it runs under (each task has its own tab); `before:
close-tab` first closes that task's tab behind Hermes' back, as Camofox does when it reaps a tab."""

import json
import os
import sys

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from tools import browser_camofox, browser_tool  # noqa: E402

TOOLS = {
    name: getattr(browser_tool, name)
    for name in (
        "browser_navigate",
        "browser_snapshot",
        "browser_click",
        "browser_type",
        "browser_press",
        "browser_scroll",
        "browser_back",
        "browser_get_images",
        "browser_console",
        "browser_vision",
    )
}


def close_tab(task):
    session = browser_camofox._sessions[task]
    resp = requests.delete(
        f"{browser_camofox.get_camofox_url()}/tabs/{session['tab_id']}",
        params={"userId": session["user_id"]},
        timeout=30,
    )
    resp.raise_for_status()


def handle(case, request):
    task = case.get("task", "main")
    if case.get("before") == "close-tab":
        close_tab(task)
    return json.loads(TOOLS[case["tool"]](**case.get("args", {}), task_id=task))


if not browser_camofox.is_camofox_mode():
    raise SystemExit("CAMOFOX_URL is not set: Hermes would not use its Camofox backend")
try:
    serve(handle)
finally:
    for task in list(browser_camofox._sessions):
        browser_camofox.camofox_close(task)
