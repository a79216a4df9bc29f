"""terminal needs a durable owner: session_open gives a token, passed beside calls as session_token.

The command runs in the project root (the demo's tests: `python3 -m unittest -v`).
"""

import os

from mcp import Client

from connect import run, tool_call


async def main(client: Client, _url: str) -> None:
    token = (await tool_call(client, "session_open"))["session_token"]
    command = os.environ.get("EXAMPLE_COMMAND", "python3 -m unittest -v")
    result = await tool_call(client, "terminal", {"command": command}, token)
    print(f"$ {command}  (exit {result['exit_code']})")
    print(result["output"])
    await tool_call(client, "session_close", {}, token)


run(main)
