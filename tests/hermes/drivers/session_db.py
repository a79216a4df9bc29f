"""Writes a test HERMES_HOME's state.db with Hermes' own hermes_state.SessionDB, never by hand.

Run with the Hermes venv's python, HERMES_HOME set; reads one JSON object (one line) on stdin:
  {"sessions": [{"id": ..., "source": "cli", "model": ..., "model_config": {...}, "parent_session_id": ...,
                 "title": ..., "end_reason": ..., "hidden": true,
                 "messages": [{"role": ..., "content": ..., "tool_name": ..., "tool_calls": [...],
                               "tool_call_id": ..., "timestamp": ..., "display_kind": ...}],
                 "rewind_to": <index into messages>, "compact": [{"role": ..., "content": ...}]}],
   "hold": {"session_id": ..., "source": ..., "content": ...}}
Sessions are written in order, each as Hermes writes one: create_session (model_config carries
Hermes' lineage markers, e.g. `_branched_from`, `_reset_from`), append_message per message
(timestamp only where given; otherwise Hermes' clock), set_session_title, then rewind_to_message /
archive_and_compact when asked, then end_session (end_reason), then set_session_hidden.
What the pinned Hermes' SessionDB has no API for (append_message's display_kind and
set_session_hidden before Hermes 0.22) is left out, so the same spec writes on every Hermes.
Prints {"path", "schema_version", "code_schema_version" (the SCHEMA_VERSION of the Hermes that
wrote it), "messages": {session_id: [message ids in order, the compacted set's after the archived
rows]}} and closes the database with SessionDB.close() (a TRUNCATE checkpoint: state.db alone holds
everything, where Hermes runs it in WAL mode).

"optimize_fts" (optional): after the sessions, SessionDB.optimize_fts_storage() where this Hermes has
it (0.22: moves a database it upgraded onto its current search-index layout); the output's
"optimized" says whether it ran and settled.

{"delegation_store": true} instead: only Hermes' async-delegation store opens state.db
(tools/async_delegation.py _connect, what Hermes' tools do before any session: hermes-agent 0.19.0
creates its async_delegations table alone, 0.22 lays out SessionDB's whole schema through
hermes_state_schema.reconcile_state_schema, without a schema_version row or the search index).
Prints {"path", "tables": [the tables it made]}.

"hold" (optional): after the sessions, Hermes' own write path (SessionDB.create_session, then
append_message inside its BEGIN IMMEDIATE transaction) with only the COMMIT deferred until a line
arrives on stdin, so a test can read while Hermes' writer holds its transaction. Prints
{"holding": true} while it waits; after the commit, a wal_checkpoint(TRUNCATE) reports whether a
reader still pins the WAL ({"committed": id, "checkpoint_busy": 0|1}).
"""
import inspect
import json
import os
import sys
from pathlib import Path


class DeferredCommit:
    """SessionDB's connection with commit() held back until the test says so."""

    def __init__(self, conn):
        self._conn = conn
        self.armed = False

    def commit(self):
        if self.armed:
            self.armed = False
            print(json.dumps({"holding": True}), flush=True)
            sys.stdin.readline()
        return self._conn.commit()

    def __getattr__(self, name):
        return getattr(self._conn, name)


def write_session(db, spec):
    sid = spec["id"]
    db.create_session(sid, spec.get("source", "cli"), model=spec.get("model"), model_config=spec.get("model_config"),
                      parent_session_id=spec.get("parent_session_id"))
    takes_display_kind = "display_kind" in inspect.signature(db.append_message).parameters
    ids = []
    for m in spec.get("messages", []):
        extra = {"display_kind": m["display_kind"]} if m.get("display_kind") and takes_display_kind else {}
        ids.append(
            db.append_message(
                sid,
                m["role"],
                content=m.get("content"),
                tool_name=m.get("tool_name"),
                tool_calls=m.get("tool_calls"),
                tool_call_id=m.get("tool_call_id"),
                timestamp=m.get("timestamp"),
                **extra,
            )
        )
    if spec.get("title"):
        db.set_session_title(sid, spec["title"])
    if spec.get("rewind_to") is not None:
        db.rewind_to_message(sid, ids[spec["rewind_to"]])
    if spec.get("compact") is not None:
        db.archive_and_compact(sid, spec["compact"])
        ids = [r["id"] for r in db.get_messages(sid, include_inactive=True)]
    if spec.get("end_reason"):
        db.end_session(sid, spec["end_reason"])
    if spec.get("hidden") and hasattr(db, "set_session_hidden"):
        db.set_session_hidden(sid, True)
    return ids


def code_schema_version(hermes_state):
    """SCHEMA_VERSION of this Hermes: hermes_state's before 0.22, hermes_state_common's since."""
    if hasattr(hermes_state, "SCHEMA_VERSION"):
        return hermes_state.SCHEMA_VERSION
    import hermes_state_common

    return hermes_state_common.SCHEMA_VERSION


def delegation_store(path):
    from tools import async_delegation

    conn = async_delegation._connect()
    tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    conn.close()
    print(json.dumps({"path": str(path), "tables": tables}), flush=True)


def main():
    spec = json.loads(sys.stdin.readline())
    if spec.get("delegation_store"):
        delegation_store(Path(os.environ["HERMES_HOME"]) / "state.db")
        return
    import hermes_state

    path = Path(os.environ["HERMES_HOME"]) / "state.db"
    db = hermes_state.SessionDB(db_path=path)
    messages = {}
    for s in spec.get("sessions", []):
        messages[s["id"]] = write_session(db, s)
    version = db._conn.execute("SELECT version FROM schema_version").fetchone()[0]
    out = {"path": str(path), "schema_version": version, "code_schema_version": code_schema_version(hermes_state), "messages": messages}
    if spec.get("optimize_fts"):
        optimize = getattr(db, "optimize_fts_storage", None)
        out["optimized"] = bool(optimize and (optimize() or {}).get("ok"))
    hold = spec.get("hold")
    if hold:
        db.create_session(hold["session_id"], hold.get("source", "cli"))
        wrapper = DeferredCommit(db._conn)
        db._conn = wrapper
        wrapper.armed = True
        msg_id = db.append_message(hold["session_id"], "user", content=hold["content"])
        db._conn = wrapper._conn
        busy = db._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        out.update({"committed": msg_id, "checkpoint_busy": busy})
    db.close()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
