"""execute_code: a Python script in a fresh isolated unit; it calls the gateway's own tools through hermes_tools."""

from mcp import Client

from connect import run, tool_call

CODE = """from hermes_tools import terminal
print(6 * 7, terminal("python3 greet.py")["output"])"""


async def main(client: Client, _url: str) -> None:
    result = await tool_call(client, "execute_code", {"code": CODE})
    print(f"status {result['status']}:")
    print(result["output"])


run(main)
