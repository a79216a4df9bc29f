"""A job: job_prepare freezes the command (nothing runs; keep the recovery token private), job_start
runs it, job_status follows it (waiting up to wait_seconds for a change) until it ends. workdir `.` is
the session's current directory, as for terminal: a new session's is the project root
(EXAMPLE_WORKDIR overrides it; a relative one resolves there too, and must stay inside the roots).
"""

import os
import sys

from mcp import Client

from connect import run, tool_call

ENDED = {"succeeded", "failed", "cancelled", "timed_out", "expired", "unknown"}


async def main(client: Client, url: str) -> None:
    token = (await tool_call(client, "session_open"))["session_token"]
    workdir = os.environ.get("EXAMPLE_WORKDIR") or "."
    command = os.environ.get("EXAMPLE_COMMAND", "python3 -m unittest -v")
    prepared = await tool_call(client, "job_prepare", {"command": command, "workdir": workdir}, token)
    job = {"job_id": prepared["job_id"], "recovery_token": prepared["recovery_token"]}
    print(f"prepared {job['job_id']} (workdir {workdir})")
    status = await tool_call(client, "job_start", job, token)
    print(f"started in {status['workdir']}: {status['state']}")
    while status["state"] not in ENDED:
        status = await tool_call(client, "job_status", {**job, "wait_seconds": 10})
    print(f"{status['state']} (exit {status['exit_code']}); output:")
    print(status["output_tail"])
    if status["state"] != "succeeded":
        sys.exit(1)


run(main)
