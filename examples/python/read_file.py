"""read_file through tool_call: a relative path starts at the project root (the demo's holds README.md)."""

import os

from mcp import Client

from connect import run, tool_call


async def main(client: Client, _url: str) -> None:
    file = await tool_call(client, "read_file", {"path": os.environ.get("EXAMPLE_FILE", "README.md")})
    print(f"{file['total_lines']} lines:")
    print(file["content"])


run(main)
