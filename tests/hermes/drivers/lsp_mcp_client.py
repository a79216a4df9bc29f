"""Hermes Agent's own MCP client on the `mcp_servers` entries of $HERMES_HOME/config.yaml.

Run with the Hermes venv's python, HERMES_HOME set; reads one JSON object on stdin:
  {"calls": [{"tool": "mcp__lsp__lsp_status", "args": {}}, ...]}
- discovery as Hermes' entry points run it: model_tools (built-in tools), then discover_mcp_tools()
  (tools/mcp_tool.py in 0.19.0, tools/mcp_tool_discovery.py once Hermes split that module: reads
  mcp_servers, spawns each stdio server through Hermes' watchdog with Hermes' filtered
  environment, registers every listed tool in the registry);
- each call as the agent loop makes it: model_tools.handle_function_call (argument coercion,
  hooks, registry dispatch to the MCP tool's handler), then the agent's per-result budget
  (tools.tool_result_storage.maybe_persist_tool_result with Hermes' default budget);
- at the end shutdown_mcp_servers() (tools/mcp_tool.py, or tools/mcp_tool_lifecycle.py).
Prints {"registered": [...], "definitions": {name: {description, parameters}} (the tools' schemas as
Hermes would offer them, before its tool search assembly where it has one), "assembled": [names]
(what model_tools.get_tool_definitions offers the model: with tool search, the bridge tools in place
of deferred MCP tools), "listed": {server: [{name, description, inputSchema}]} (the tools/list
Hermes received), "status": [...], "calls": [{"tool",
"result" (what handle_function_call returned), "delivered" (what the model would get), "seconds"}],
"threshold": the persistence threshold of the first call's tool, "processes": [{"pid", "cmdline"}]
of this process's descendants (the MCP servers Hermes started, and theirs) just before shutdown}.
"""
import inspect
import json
import os
import sys
import time


def descendants(pid):
    """Every live descendant of pid, from /proc (ppid links)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append({"pid": int(entry), "cmdline": cmdline})
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child["pid"])
    return found


def main():
    spec = json.load(sys.stdin)
    import model_tools
    from tools import mcp_tool
    from tools.budget_config import DEFAULT_BUDGET
    from tools.tool_result_storage import maybe_persist_tool_result

    try:  # Hermes after 0.19.0 split tools/mcp_tool.py into tools/mcp_tool_*.py modules
        from tools.mcp_tool_discovery import discover_mcp_tools, get_mcp_status
        from tools.mcp_tool_lifecycle import shutdown_mcp_servers
    except ImportError:
        discover_mcp_tools, get_mcp_status, shutdown_mcp_servers = mcp_tool.discover_mcp_tools, mcp_tool.get_mcp_status, mcp_tool.shutdown_mcp_servers

    def definitions_of(toolsets, **extra):
        found = model_tools.get_tool_definitions(enabled_toolsets=toolsets, quiet_mode=True, **extra) or []
        return [d["function"] for d in found if d.get("type") == "function"]

    def listed_tool(tool):
        # mcp 1.x and 2.x Tool models alike: the wire names (inputSchema), not the Python attributes.
        wire = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
        return {"name": wire["name"], "description": wire.get("description"), "inputSchema": wire["inputSchema"]}

    out = {"registered": [], "definitions": {}, "calls": []}
    try:
        registered = discover_mcp_tools()
        out["registered"] = sorted(registered)
        out["status"] = get_mcp_status()
        toolsets = sorted({f"mcp-{s['name']}" for s in out["status"]})
        # Hermes' tool search (where it has one) offers deferred tools through its bridge: the
        # schemas themselves are what it assembles from, the raw definitions.
        raw = {"skip_tool_search_assembly": True} if "skip_tool_search_assembly" in inspect.signature(model_tools.get_tool_definitions).parameters else {}
        out["definitions"] = {d["name"]: {"description": d.get("description"), "parameters": d["parameters"]} for d in definitions_of(toolsets, **raw)}
        out["assembled"] = sorted(d["name"] for d in definitions_of(toolsets))
        out["listed"] = {getattr(server, "name", name) if not isinstance(name, str) else name: [listed_tool(t) for t in server._tools] for name, server in mcp_tool._servers.items()}
        for i, call in enumerate(spec.get("calls") or []):
            start = time.monotonic()
            result = model_tools.handle_function_call(call["tool"], call.get("args") or {}, task_id="lsp-mcp-client")
            seconds = time.monotonic() - start
            delivered = maybe_persist_tool_result(content=result, tool_name=call["tool"], tool_use_id=f"call_{i}", env=None, config=DEFAULT_BUDGET)
            out["calls"].append({"tool": call["tool"], "result": result, "delivered": delivered, "seconds": seconds})
        if spec.get("calls"):
            out["threshold"] = DEFAULT_BUDGET.resolve_threshold(spec["calls"][0]["tool"])
        out["processes"] = descendants(os.getpid())
    finally:
        shutdown_mcp_servers()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
