"""Writes a test HERMES_HOME's state.db with Hermes' own hermes_state.SessionDB, never by hand.

Run with the Hermes venv's python, HERMES_HOME set; reads one JSON object (one line) on stdin:
  {"sessions": [{"id": ..., "source": "cli", "model": ..., "parent_session_id": ...,
                 "title": ..., "end_reason": ...,
                 "messages": [{"role": ..., "content": ..., "tool_name": ..., "tool_calls": [...],
                               "tool_call_id": ..., "timestamp": ...}],
                 "rewind_to": <index into messages>, "compact": [{"role": ..., "content": ...}]}],
   "hold": {"session_id": ..., "source": ..., "content": ...}}
Sessions are written in order, each as Hermes writes one: create_session, append_message per
message (timestamp only where given; otherwise Hermes' clock), set_session_title, then
rewind_to_message / archive_and_compact when asked, then end_session (end_reason).
Prints {"path", "schema_version", "messages": {session_id: [message ids in order, the compacted
set's after the archived rows]}} and closes the
database with SessionDB.close() (a TRUNCATE checkpoint: state.db alone holds everything).

"hold" (optional): after the sessions, Hermes' own write path (SessionDB.create_session, then
append_message inside its BEGIN IMMEDIATE transaction) with only the COMMIT deferred until a line
arrives on stdin, so a test can read while Hermes' writer holds its transaction. Prints
{"holding": true} while it waits; after the commit, a wal_checkpoint(TRUNCATE) reports whether a
reader still pins the WAL ({"committed": id, "checkpoint_busy": 0|1}).
"""
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
    db.create_session(sid, spec.get("source", "cli"), model=spec.get("model"), parent_session_id=spec.get("parent_session_id"))
    ids = []
    for m in spec.get("messages", []):
        ids.append(
            db.append_message(
                sid,
                m["role"],
                content=m.get("content"),
                tool_name=m.get("tool_name"),
                tool_calls=m.get("tool_calls"),
                tool_call_id=m.get("tool_call_id"),
                timestamp=m.get("timestamp"),
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
    return ids


def main():
    spec = json.loads(sys.stdin.readline())
    import hermes_state

    path = Path(os.environ["HERMES_HOME"]) / "state.db"
    db = hermes_state.SessionDB(db_path=path)
    messages = {}
    for s in spec.get("sessions", []):
        messages[s["id"]] = write_session(db, s)
    version = db._conn.execute("SELECT version FROM schema_version").fetchone()[0]
    out = {"path": str(path), "schema_version": version, "code_schema_version": hermes_state.SCHEMA_VERSION, "messages": messages}
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
