"""tools/list: the gateway's six public tools (everything else is found through tool_search)."""

from mcp import Client

from connect import run


async def main(client: Client, _url: str) -> None:
    for tool in (await client.list_tools()).tools:
        print(f"{tool.name}: {(tool.description or '').splitlines()[0][:100]}")


run(main)
