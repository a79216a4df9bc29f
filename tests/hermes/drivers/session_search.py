"""Runs Hermes' own session_search tool (tools/session_search_tool.py) over $HERMES_HOME/state.db.

Run with the Hermes venv's python, HERMES_HOME set; reads one JSON object (one line) on stdin:
  {"calls": [{<session_search keyword arguments>}, ...]}
Prints {"results": [<each call's parsed JSON answer>]}. SessionDB opens the database for writing
(its start-up schema check may write), so give it a copy, never the one the gateway reads.
"""
import json
import os
import sys
from pathlib import Path


def main():
    spec = json.loads(sys.stdin.readline())
    import hermes_state
    from tools.session_search_tool import session_search

    db = hermes_state.SessionDB(db_path=Path(os.environ["HERMES_HOME"]) / "state.db")
    results = [json.loads(session_search(db=db, **call)) for call in spec["calls"]]
    db.close()
    print(json.dumps({"results": results}), flush=True)


if __name__ == "__main__":
    main()
