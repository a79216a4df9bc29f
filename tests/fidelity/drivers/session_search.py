"""Hermes' own session_search (tools/session_search_tool.py session_search) over
$HERMES_HOME/state.db, on each case: {"args": {<the tool's keyword arguments>}}. SessionDB opens the
database for writing (its start-up schema check may write), so the caller gives it a copy, never the
file the gateway reads. The database handle is passed as the agent loop passes it, with no current
session (the gateway is not inside a conversation either). The arguments first go through Hermes'
dispatch coercion (model_tools.py coerce_tool_args, as handle_function_call applies it), so a case
sending "2" for limit compares what Hermes' dispatch makes of it."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

import hermes_state  # noqa: E402
from model_tools import coerce_tool_args  # noqa: E402
from tools.session_search_tool import session_search  # noqa: E402

db = hermes_state.SessionDB(db_path=Path(os.environ["HERMES_HOME"]) / "state.db")


def handle(case, request):
    return json.loads(session_search(db=db, **coerce_tool_args("session_search", dict(case["args"]))))


serve(handle)
db.close()
