"""One execute_code unit: the init of its own PID namespace, holding exactly one script.

Started by the gateway as ``python3 unit.py`` (under ``setpriv ... unshare --pid --fork ...`` when
the host allows it), with the cwd and scrubbed environment already set, stdin the pipe the code will
arrive on, stdout/stderr the pipes the gateway collects, and fd 3 the gateway's frame channel
(4-byte big-endian length, then UTF-8 JSON). It is cheap on purpose: a unit is prepared for every
call, so its preparation cost bounds how fast calls can follow each other. Where it can, the unit
zygote (``zygote.py``) forks this process instead, sets up the same fds, cwd and environment in the
fork (fds 0-3 are then sockets the unit connected back to the gateway) and calls ``main()``.

- It forks the script process at once. That process warms up (``runner._run``: ``hermes_tools``
  imported, nothing connected) and blocks reading the code from stdin, exactly like
  ``python3 runner.py``; then this process sends ``{"type":"ready"}``. The fork happens before any
  user code exists, so the script gets a pristine interpreter and is never reused.
- The script's ``hermes_tools.terminal`` commands arrive as ``exec`` frames. The first one starts
  the command helper (``workers/execute-commands.js``, Node) inside this namespace; frames are
  forwarded whole both ways, so this process stays the only writer on fd 3 (a helper killed
  mid-write can never leave half a frame in front of ``done``). A script that never calls
  ``terminal`` never pays for the helper.
- When the script process exits, everything else in the namespace is killed, then
  ``{"type":"done","exitCode":N|null,"signal":N|null}`` is sent and this process exits, which
  takes the namespace down with it.
- If fd 3 closes (the gateway gave up on the unit), the script and everything it started are
  killed at once.

Outside a PID namespace (the gateway's degraded isolation modes) this process is a child
subreaper instead: whatever the script orphans re-parents here, and everything below this process
is killed when the script ends; the gateway's process-group kill and tagged sweep come after.

Python 3.9+, standard library only; only built-in modules are imported before the fork.
"""

import _thread
import os

import runner

CHANNEL = 3
_write_lock = _thread.allocate_lock()
_helper = None  # the command helper's end of its socketpair, once started
_script_pid = 0
_script_reaped = False


def _frame(body):
    data = body.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def _send(frame_bytes, fd=CHANNEL):
    with _write_lock:
        view = memoryview(frame_bytes)
        while view:
            view = view[os.write(fd, view):]


def _read_exact(read, n):
    """n bytes from read(k), or None at EOF."""
    chunks = []
    while n > 0:
        chunk = read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_frame(read):
    header = _read_exact(read, 4)
    if header is None:
        return None
    body = _read_exact(read, int.from_bytes(header, "big"))
    return None if body is None else header + body


def _kill(pid):
    try:
        os.kill(pid, 9)
    except OSError:
        pass


def _kill_everything(script_alive):
    """SIGKILL the script (while it is still ours to wait for: its pid cannot have been reused) and
    everything else it started: inside our own PID namespace, every other process in it; outside
    one, every descendant of this (subreaper) process, a few rounds in case something forks."""
    if script_alive:
        _kill(_script_pid)
    if os.getpid() == 1:
        _kill(-1)
        return
    for _ in range(5):
        found = _descendants()
        if not found:
            return
        for pid in found:
            _kill(pid)


def _descendants():
    """Live descendants of this process (/proc/<pid>/task/<tid>/children, recursively)."""
    found, stack = [], [os.getpid()]
    while stack:
        pid = stack.pop()
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tasks:
            try:
                with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                continue
            for child in children:
                if child not in found and not _is_zombie(child):
                    found.append(child)
                    stack.append(child)
    return found


def _is_zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        return stat[stat.rindex(")") + 2] in "ZX"
    except (OSError, ValueError, IndexError):
        return True


def _become_subreaper():
    """PR_SET_CHILD_SUBREAPER (36), so the script's orphans re-parent here (outside a namespace)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except Exception:  # noqa: BLE001 - best effort, like the degraded mode it serves
        pass


def _start_helper():
    import socket

    global _helper
    ours, theirs = socket.socketpair()
    env = _script_environment()
    os.posix_spawn(
        os.environ["HERMES_MCP_NODE"],
        [os.environ["HERMES_MCP_NODE"], os.environ["HERMES_MCP_COMMANDS_ENTRY"]],
        env,
        file_actions=[(os.POSIX_SPAWN_DUP2, theirs.fileno(), CHANNEL)],
    )
    theirs.close()
    _helper = ours
    _thread.start_new_thread(_from_helper, (ours,))


def _from_helper(sock):
    """Helper -> gateway, whole frames only."""
    global _helper
    while True:
        frame = _read_frame(sock.recv)
        if frame is None:
            break
        _send(frame)
    if _helper is sock:
        _helper = None  # died: the next exec frame starts a fresh one
    sock.close()


def _from_gateway():
    """Gateway -> helper. EOF: the gateway is gone or gave up on this unit."""
    while True:
        frame = _read_frame(lambda n: os.read(CHANNEL, n))
        if frame is None:
            _kill_everything(script_alive=not _script_reaped)
            os._exit(1)
        if _helper is None:
            try:
                _start_helper()
            except Exception as exc:  # noqa: BLE001 - answered, so the script's call does not hang
                _refuse(frame, "could not start the command helper: %s" % exc)
                continue
        try:
            _helper.sendall(frame)
        except OSError:
            pass


def _refuse(frame, message):
    """Answers one exec request with an error result (the request's id is all that is needed)."""
    import json

    request = json.loads(frame[4:].decode("utf-8"))
    _send(_frame(json.dumps({"type": "result", "id": request.get("id"), "error": message})))


def _script_environment():
    """The unit's own settings are not the script's (or its commands') business."""
    env = dict(os.environ)
    for name in ("HERMES_MCP_NODE", "HERMES_MCP_COMMANDS_ENTRY"):
        env.pop(name, None)
    return env


def main(prepare_script=None):
    """``prepare_script`` (optional) runs in the script process once it has warmed up, just before
    it reports ready (the unit zygote uses it to take copy-on-write faults off the script's run)."""
    global _script_pid, _script_reaped
    if os.getpid() != 1:
        _become_subreaper()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(CHANNEL)
        # The frame cap is the command helper's (its channel's), not the script's.
        for name in ("HERMES_MCP_NODE", "HERMES_MCP_COMMANDS_ENTRY", "HERMES_MCP_MAX_FRAME_BYTES"):
            os.environ.pop(name, None)

        def ready():
            if prepare_script is not None:
                prepare_script()
            os.write(ready_w, b"r")
            os.close(ready_w)

        # SystemExit (the script's, or the runner's after a traceback) propagates to the interpreter,
        # which exits as a script would: message, atexit handlers, stdio flushed, threads joined.
        runner._run(ready)
        return

    _script_pid = pid
    os.close(ready_w)
    # Only the script holds its stdio: its output pipes reach EOF when it (and what it started) ends.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    os.read(ready_r, 1)  # b"" if the script process died while warming up: done follows at once
    os.close(ready_r)
    _send(_frame('{"type":"ready"}'))
    _thread.start_new_thread(_from_gateway, ())
    _, status = os.waitpid(pid, 0)
    _script_reaped = True
    if os.WIFSIGNALED(status):
        code, signal = "null", str(os.WTERMSIG(status))
    else:
        code, signal = str(os.WEXITSTATUS(status)), "null"
    _kill_everything(script_alive=False)
    _send(_frame('{"type":"done","exitCode":%s,"signal":%s}' % (code, signal)))
    os._exit(0)


if __name__ == "__main__":
    main()
