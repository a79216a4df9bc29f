"""Hermes tools for execute_code scripts: ``from hermes_tools import terminal, read_file, ...``.

Each tool function sends one RPC request to the gateway and returns the tool's parsed JSON result
(a dict for every Hermes tool; errors come back as ``{"error": "..."}``, they are not raised).

Stub signatures are Hermes Agent's (``tools/code_execution_tool.py``, ``_TOOL_STUBS``), annotations
included, as ``inspect.signature`` shows them. The gateway
decides which tools a script may actually call; a refused call returns an ``{"error": ...}`` dict.

Transport (Hermes' local UDS transport): the Unix socket named by ``HERMES_RPC_SOCKET`` (or a
``tcp://host:port`` endpoint), newline-delimited JSON, request
``{"tool": name, "args": {...}, "token": HERMES_RPC_TOKEN}`` answered by one JSON line. One
connection per process, opened on the first call; calls are serialised with a lock because the
protocol has no request ids; 300 s socket timeout.

Gateway: optional arguments left at ``None`` are omitted from ``args`` (Hermes sends them as
``null``), so the tool applies its own default.

Import cost: every execute_code unit imports this module while it is being prepared, before its
script exists, so only built-in modules are imported here; ``json`` and ``socket`` are loaded by the
first call, ``shlex`` by the first ``shell_quote``.

Python 3.9+, standard library only.
"""

import _thread
import os
import time

__all__ = [
    "web_search",
    "web_extract",
    "read_file",
    "write_file",
    "search_files",
    "patch",
    "terminal",
    "json_parse",
    "shell_quote",
    "retry",
]

_SOCKET_TIMEOUT = 300

_sock = None
# One connection, no request ids: concurrent calls (threads) must not interleave their
# send/receive, or they would read each other's responses.
_call_lock = _thread.allocate_lock()  # what threading.Lock() returns
# Bytes received past the end of the last response line (normally none).
_pending = b""


def _connect():
    global _sock
    if _sock is None:
        import socket

        endpoint = os.environ["HERMES_RPC_SOCKET"]
        if endpoint.startswith("tcp://"):
            host, _, port = endpoint[len("tcp://"):].rpartition(":")
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.settimeout(_SOCKET_TIMEOUT)
            sock.connect((host or "127.0.0.1", int(port)))
        else:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(_SOCKET_TIMEOUT)
            sock.connect(endpoint)
        _sock = sock
    return _sock


def _drop_connection():
    global _sock, _pending
    if _sock is not None:
        try:
            _sock.close()
        except OSError:
            pass
    _sock = None
    _pending = b""


def _call(tool_name, args):
    """Send one tool call to the gateway and return the parsed result."""
    import json

    global _pending
    request = json.dumps({
        "tool": tool_name,
        "args": args,
        "token": os.environ.get("HERMES_RPC_TOKEN", ""),
    }) + "\n"
    with _call_lock:
        try:
            conn = _connect()
            conn.sendall(request.encode("utf-8"))
            buf = _pending
            while b"\n" not in buf:
                chunk = conn.recv(65536)
                if not chunk:
                    raise RuntimeError("Agent process disconnected")
                buf += chunk
            line, _, _pending = buf.partition(b"\n")
        except (OSError, RuntimeError):
            _drop_connection()
            raise
    result = json.loads(line.decode("utf-8").strip())
    if isinstance(result, str):
        try:
            return json.loads(result)
        except (json.JSONDecodeError, TypeError):
            return result
    return result


def _args(**kwargs):
    """The RPC args: every argument except optional ones left at None."""
    return {k: v for k, v in kwargs.items() if v is not None}


# ---------------------------------------------------------------------------
# Tools (Hermes signatures)
# ---------------------------------------------------------------------------

def web_search(query: str, limit: int = 5):
    """Search the web. Returns dict with data.web list of {url, title, description}."""
    return _call("web_search", _args(query=query, limit=limit))


def web_extract(urls: list, char_limit: int = None):
    """Extract content from URLs. Returns dict with results list of {url, title, content, error}."""
    return _call("web_extract", _args(urls=urls, char_limit=char_limit))


# What the signatures follow of the Hermes the gateway fronts (its generate_hermes_tools_module):
# read_file's default limit, and whether search_files takes `order`. The gateway sets both where
# this module is imported (the unit zygote, or a spawned unit); they are removed here, before any
# script runs, as they are not the script's.
_READ_FILE_LIMIT = int(os.environ.pop("HERMES_MCP_STUB_READ_FILE_LIMIT", "2000"))
_SEARCH_ORDER = os.environ.pop("HERMES_MCP_STUB_SEARCH_ORDER", None)


def read_file(path: str, offset: int = 1, limit: int = _READ_FILE_LIMIT):
    """Read a file (1-indexed lines). Returns dict with "content" and "total_lines"."""
    return _call("read_file", _args(path=path, offset=offset, limit=limit))


def write_file(path: str, content: str, cross_profile: bool = False):
    """Write content to a file (always overwrites). Returns dict with status."""
    return _call("write_file", _args(path=path, content=content, cross_profile=cross_profile))


def _search_files(pattern, target, path, file_glob, limit, offset, output_mode, context, order=None):
    return _call("search_files", _args(
        pattern=pattern, target=target, path=path, file_glob=file_glob, limit=limit,
        offset=offset, output_mode=output_mode, context=context, order=order,
    ))


if _SEARCH_ORDER is not None:
    def search_files(pattern: str, target: str = "content", path: str = ".", file_glob: str = None,
                     limit: int = 50, offset: int = 0, output_mode: str = "content", context: int = 0,
                     order: str = _SEARCH_ORDER):
        """Search file contents (target="content") or find files by name (target="files"; order="discovery" or "modified")."""
        return _search_files(pattern, target, path, file_glob, limit, offset, output_mode, context, order)
else:
    def search_files(pattern: str, target: str = "content", path: str = ".", file_glob: str = None,
                     limit: int = 50, offset: int = 0, output_mode: str = "content", context: int = 0):
        """Search file contents (target="content") or find files by name (target="files")."""
        return _search_files(pattern, target, path, file_glob, limit, offset, output_mode, context)


def patch(path: str = None, old_string: str = None, new_string: str = None, replace_all: bool = False,
          mode: str = "replace", patch: str = None, cross_profile: bool = False):
    """Targeted find-and-replace (mode="replace") or V4A multi-file patches (mode="patch")."""
    return _call("patch", _args(
        path=path, old_string=old_string, new_string=new_string, replace_all=replace_all,
        mode=mode, patch=patch, cross_profile=cross_profile,
    ))


def terminal(command: str, timeout: int = None, workdir: str = None):
    """Run a shell command (foreground only). Returns dict with "output" and "exit_code"."""
    return _call("terminal", _args(command=command, timeout=timeout, workdir=workdir))


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def json_parse(text: str):
    """json.loads with strict=False: tolerates raw control characters (tabs, newlines) inside
    strings, as found in terminal() or web_extract() output."""
    import json

    return json.loads(text, strict=False)


def shell_quote(s: str) -> str:
    """Shell-escape a string for safe interpolation into terminal() commands:
    terminal(f"echo {shell_quote(user_input)}")"""
    import shlex

    return shlex.quote(s)


def retry(fn, max_attempts=3, delay=2):
    """Call fn() up to max_attempts times with exponential backoff (delay, 2*delay, ...),
    re-raising the last exception: result = retry(lambda: terminal("gh issue list"))"""
    last_err = None
    for attempt in range(max_attempts):
        try:
            return fn()
        except Exception as e:
            last_err = e
            if attempt < max_attempts - 1:
                time.sleep(delay * (2 ** attempt))
    raise last_err
