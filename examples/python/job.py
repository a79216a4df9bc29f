"""A job: job_prepare freezes the command (nothing runs; keep the recovery token private), job_start
runs it, job_status follows it (waiting up to wait_seconds for a change) until it ends. workdir is an
absolute directory inside the roots: here the project root the gateway's /readyz reports
(EXAMPLE_WORKDIR overrides it).
"""

import json
import os
import sys
import urllib.parse
import urllib.request

from mcp import Client

from connect import run, tool_call

ENDED = {"succeeded", "failed", "cancelled", "timed_out", "expired", "unknown"}


def project_root(mcp_url: str) -> str:
    with urllib.request.urlopen(urllib.parse.urljoin(mcp_url, "/readyz")) as response:  # noqa: S310 - the gateway's own URL
        readyz = json.load(response)
    root = readyz.get("components", {}).get("roots", {}).get("details", {}).get("terminal_cwd")
    if not root:
        raise RuntimeError("the gateway reports no project root in /readyz; set EXAMPLE_WORKDIR")
    return str(root)


async def main(client: Client, url: str) -> None:
    token = (await tool_call(client, "session_open"))["session_token"]
    workdir = os.environ.get("EXAMPLE_WORKDIR") or project_root(url)
    command = os.environ.get("EXAMPLE_COMMAND", "python3 -m unittest -v")
    prepared = await tool_call(client, "job_prepare", {"command": command, "workdir": workdir}, token)
    job = {"job_id": prepared["job_id"], "recovery_token": prepared["recovery_token"]}
    print(f"prepared {job['job_id']} in {workdir}")
    status = await tool_call(client, "job_start", job, token)
    print(f"started: {status['state']}")
    while status["state"] not in ENDED:
        status = await tool_call(client, "job_status", {**job, "wait_seconds": 10})
    print(f"{status['state']} (exit {status['exit_code']}); output:")
    print(status["output_tail"])
    if status["state"] != "succeeded":
        sys.exit(1)


run(main)
