"""What every Python example shares: where the gateway is, which protocol era to speak, and tool_call.

    .cache/examples-python-venv/bin/python examples/python/<example>.py [URL] [--legacy]

URL: the gateway's MCP endpoint (else $HERMES_MCP_URL, else http://127.0.0.1:3060/mcp).
--legacy: the 2025 era (initialize, then the Mcp-Session-Id it answers with on every request);
--auto: the SDK asks the server which versions it speaks (server/discover) and picks the newest;
without either, the sessionless 2026-07-28 era (no initialize: each request carries the version).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client

DEFAULT_URL = "http://127.0.0.1:3060/mcp"


def options(argv: list[str] | None = None) -> tuple[str, str]:
    """The gateway URL and the SDK's connect mode: "legacy", "auto", or the 2026-07-28 pin."""
    args = sys.argv[1:] if argv is None else argv
    url = next((a for a in args if not a.startswith("--")), os.environ.get("HERMES_MCP_URL", DEFAULT_URL))
    return url, "legacy" if "--legacy" in args else "auto" if "--auto" in args else "2026-07-28"


async def tool_call(client: Client, name: str, arguments: dict[str, Any] | None = None, session_token: str | None = None) -> dict[str, Any]:
    """One deferred tool through the public tool_call: its structured result; a tool error raises with its code."""
    call: dict[str, Any] = {"calls": [{"name": name, "arguments": arguments or {}}]}
    if session_token:
        call["session_token"] = session_token
    result = await client.call_tool("tool_call", call)
    data: dict[str, Any] = result.structured_content or {}
    if result.is_error:
        raise RuntimeError(f"{name}: {data.get('error')}: {data.get('message')}")
    return data


def run(body: Callable[[Client, str], Awaitable[None]]) -> None:
    """Connects in the chosen era, runs `body(client, url)`, closes; a failure prints its message and exits 1."""
    url, mode = options()

    async def main() -> None:
        async with Client(url, mode=mode) as client:
            print(f"connected to {url}: protocol {client.protocol_version}")
            await body(client, url)

    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001 - an example reports any failure and exits 1
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
