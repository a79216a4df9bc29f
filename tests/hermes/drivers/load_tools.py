"""Loads Hermes' tools in a test HERMES_HOME the way its tool server does at start, nothing more.

Run with the Hermes venv's python, HERMES_HOME set; reads one JSON object on stdin (ignored: {}).
agent.transports.hermes_tools_mcp_server builds its tool list with
model_tools.get_tool_definitions(quiet_mode=True); this calls the same, so whatever Hermes writes
into the home when its tools load (state.db's async_delegations table, through
tools/process_registry.py and tools/async_delegation.py) is written by Hermes itself.
Prints {"tools": [names], "state_db_tables": [tables] or null}.
"""
import json
import os
import sqlite3
import sys


def main():
    json.load(sys.stdin)
    os.environ.setdefault("HERMES_QUIET", "1")
    from model_tools import get_tool_definitions

    names = sorted(td["function"]["name"] for td in (get_tool_definitions(quiet_mode=True) or []) if isinstance(td, dict) and td.get("type") == "function")
    path = os.path.join(os.environ["HERMES_HOME"], "state.db")
    tables = None
    if os.path.exists(path):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        conn.close()
    print(json.dumps({"tools": names, "state_db_tables": tables}))


if __name__ == "__main__":
    main()
