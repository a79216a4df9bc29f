"""honcho_tools: Hermes' own Honcho tools (plugins/memory/honcho/__init__.py
HonchoMemoryProvider.handle_tool_call over session.py HonchoSessionManager) against a Honcho
stand-in. Each case names its HERMES_HOME (whose honcho.json points at the case's stand-in) and
working directory; the provider is initialised as Hermes' CLI does (session id, platform cli), then
a marker request (GET /health) separates its start-up calls from the tools' own, and each
[tool, arguments] of the case is called in turn: the answers are the tools' JSON results."""

import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from oracle import serve  # noqa: E402

from plugins.memory.honcho import HonchoMemoryProvider  # noqa: E402
from plugins.memory.honcho.client import reset_honcho_client  # noqa: E402

for k in ("HONCHO_API_KEY", "HONCHO_BASE_URL", "HONCHO_URL", "HONCHO_ENVIRONMENT", "HERMES_HONCHO_HOST", "HERMES_PROFILE"):
    os.environ.pop(k, None)


def handle(case, _request):
    os.environ["HOME"] = case["home"]
    os.environ["HERMES_HOME"] = case["home"]
    os.chdir(case["cwd"])
    reset_honcho_client()
    provider = HonchoMemoryProvider()
    provider.initialize("fidelity-run", platform="cli")
    if not provider._session_initialized:
        provider._ensure_session()
    urllib.request.urlopen(case["url"] + "/health", timeout=10).read()
    answers = []
    for tool, args in case["calls"]:
        answers.append(json.loads(provider.handle_tool_call(tool, args)))
    provider.shutdown()
    return answers


serve(handle)
