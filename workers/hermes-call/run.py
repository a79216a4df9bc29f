"""One call of one of Hermes' own functions, in the Hermes interpreter the gateway fronts.

Started by the gateway as ``<Hermes' python> run.py`` (under the host's isolation prefix), with
Hermes' source checkout (or $HERMES_HOME) as cwd and fd 3 the gateway's frame channel (4-byte
big-endian length, then UTF-8 JSON; shared/worker-protocol/hermes-call.ts has the types). It sends
``{"type": "ready"}``, reads one ``call`` frame naming a module of this directory and an operation,
runs ``handle(op, payload, commit)`` of that module, sends one ``result`` frame and exits. The cwd goes on
``sys.path`` first, as ``python -m`` puts it (in place of this script's directory, so a module here
never shadows one of Hermes'), and a source checkout is imported from where it is.

A module's ``handle`` returns a JSON-serialisable value, raises ``KeyError`` for an operation it does
not have, and lets Hermes' own exceptions through: an ImportError or AttributeError (this Hermes does
not have the function) is answered as ``unsupported``, anything else as ``raised``.

``commit()`` is the point of no return of an operation that changes Hermes' durable state: the
handler calls it once everything that changes nothing is done (imports, Hermes' lock taken) and
right before Hermes' change begins. It sends ``{"type": "committing", "id": <the call's id>}`` and
blocks reading the next frame: the gateway answers ``{"type": "proceed", "id": ...}`` only while the
call is neither cancelled nor past its budget, and kills the worker otherwise. Anything but that
``proceed`` (or the channel closing) ends this process with SystemExit before anything is touched
(a ``with`` block it is inside, such as Hermes' lock, is left as usual). A handler that changes
nothing never calls it.
"""

import importlib.util
import json
import os
import sys

CHANNEL = 3
HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ("documents", "cron", "lint")


def _send(body):
    data = json.dumps(body).encode("utf-8")
    view = memoryview(len(data).to_bytes(4, "big") + data)
    while view:
        view = view[os.write(CHANNEL, view):]


def _read_exact(n):
    chunks = []
    while n > 0:
        chunk = os.read(CHANNEL, n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_frame():
    head = _read_exact(4)
    if head is None:
        return None
    cap = int(os.environ.get("HERMES_MCP_MAX_FRAME_BYTES", "0") or 0)
    size = int.from_bytes(head, "big")
    if cap and size > cap:
        raise SystemExit(f"incoming frame of {size} bytes is over the cap of {cap}")
    body = _read_exact(size)
    return None if body is None else json.loads(body.decode("utf-8"))


def _committer(call_id):
    def commit():
        _send({"type": "committing", "id": call_id})
        reply = _read_frame()
        if reply is None or reply.get("type") != "proceed" or reply.get("id") != call_id:
            raise SystemExit("the gateway did not let the change proceed; nothing was touched")

    return commit


def _answer(request):
    module = request.get("module")
    if module not in MODULES:
        return {"failure": {"kind": "unknown", "message": f"no Hermes call module {module!r}"}}
    spec = importlib.util.spec_from_file_location(f"hermes_call_{module}", os.path.join(HERE, f"{module}.py"))
    handler = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(handler)
        return {"value": handler.handle(request.get("op"), request.get("payload"), _committer(request["id"]))}
    except KeyError as exc:
        if exc.args and exc.args[0] == request.get("op"):
            return {"failure": {"kind": "unknown", "message": f"the Hermes call module {module} has no operation {request.get('op')!r}"}}
        return {"failure": {"kind": "raised", "message": f"KeyError: {exc}"}}
    except (ImportError, AttributeError) as exc:
        return {"failure": {"kind": "unsupported", "message": f"{type(exc).__name__}: {exc}"}}
    except Exception as exc:  # Hermes' own refusal or failure, answered as it raised it
        return {"failure": {"kind": "raised", "message": f"{type(exc).__name__}: {exc}"}}


def main():
    # The cwd where ``python -m`` would put it, in place of this script's own directory: a module
    # here named like one of Hermes' packages (cron) must never shadow it.
    sys.path[0] = os.getcwd()
    # Hermes' modules print to stdout at times; the answer goes on fd 3 only.
    _send({"type": "ready"})
    request = _read_frame()
    if request is None or request.get("type") != "call":
        return
    answer = _answer(request)
    _send({"type": "result", "id": request["id"], **answer})


if __name__ == "__main__":
    main()
