"""tool_search: the deferred tools that match a need (then tool_describe for their schemas, tool_call to run one)."""

from typing import Any

from mcp import Client

from connect import run


async def main(client: Client, _url: str) -> None:
    result = await client.call_tool("tool_search", {"queries": ["read a file", "run a long build"]})
    found: dict[str, Any] = result.structured_content or {}
    print(f"{found.get('total_available')} deferred tools; best matches:")
    for r in found.get("results", []):
        print(f"  {r['query']}: {', '.join(r['matches'])}")


run(main)
