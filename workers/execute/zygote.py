"""The execute_code unit zygote: a warm interpreter that forks fresh units on request.

Preparing a unit by starting ``setpriv ... unshare ... python3 unit.py`` costs two program starts
and a whole interpreter start-up (about 13 ms of CPU); forking it from this process, which has the
interpreter, ``site``, ``runner``, ``unit`` and ``hermes_tools`` already loaded, costs a few
forks. Every unit is still a new process tree in a new PID namespace that runs exactly one script
and is never reused; nothing of a previous script can be in it, since scripts only ever run in the
forks' forks and this process never runs user code.

Started by the gateway as ``setpriv --pdeathsig KILL python3 zygote.py`` (so it dies with the
gateway), with the gateway's scrubbed environment, fds 0-2 the kind of sockets a spawned unit's
stdio would be (so the interpreter sets up ``sys.stdin``/``stdout``/``stderr`` exactly as it would
for a unit) and fd 3 its control channel (4-byte big-endian length, then UTF-8 JSON):

- gateway -> zygote ``{"type":"spawn","id","token","socket","cwd","env"}``: fork a unit;
  ``{"type":"kill","id"}``: SIGKILL that unit's holder if it has not been reaped yet.
  ``{"type":"shutdown"}`` (or EOF): kill every unit still here, reap everything, exit 0.
- zygote -> gateway ``{"type":"ready"}`` once it has checked that it can make units here, else
  ``{"type":"unavailable","reason"}`` (and nothing more); ``{"type":"exit","id","code","signal"}``
  when a unit's holder has been reaped (its namespace is gone by then).

One unit, per request (what ``setpriv --pdeathsig KILL unshare [--map-root-user] --pid --fork
--kill-child --mount-proc python3 unit.py`` gives, made with the same system calls):

- the HOLDER (forked here, parent-death signal SIGKILL) unshares a new PID and mount namespace (and
  a user namespace mapping root to the gateway's uid when not root, like ``--map-root-user``),
  makes ``/`` private recursively so nothing mounted inside propagates out, forks the unit's init
  and exits with its status (like ``unshare --fork``);
- the INIT (PID 1 of the new namespace; parent-death signal SIGKILL on the holder, like
  ``--kill-child``) mounts a fresh ``/proc``, changes to the request's cwd, takes the request's
  environment, connects three times to the gateway's private unit socket (each connection starts
  with a kind byte, the unit id and the unit's one-time token): the script's stdin+stdout, its
  stderr, and the frame channel, which become fds 0/1, 2 and 3 exactly as in a spawned unit, and
  then runs ``unit.main()`` unchanged. Its first frame is ``{"type":"hello","pid"}``: its pid as
  the gateway sees it, which the gateway SIGKILLs to end the whole namespace.

The gateway cannot hand file descriptors to a process it did not spawn (Node has no SCM_RIGHTS on
plain sockets), which is why the unit connects back instead. A parent-death signal is checked
against the parent right after it is set, so a parent that died in between is never missed: the
chain gateway -> zygote -> holder -> init has one on every link, and the kernel kills everything
else in a namespace when its init dies. This process is a child subreaper and reaps whatever comes
to it, so no unit leaves a zombie anywhere.

Linux only; Python 3.9+, standard library only (ctypes for unshare, mount and prctl).
"""

import ctypes
import gc
import json
import os
import select
import signal
import socket
import sys

import hermes_tools  # noqa: F401 - warm for every unit (imports only built-in modules)
import runner  # noqa: F401 - the script process's launcher, warm
import unit

CONTROL = 3
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
UNIT_KINDS = (b"o", b"e", b"f")  # stdin+stdout, stderr, frames: the order the init connects in

_libc = ctypes.CDLL(None, use_errno=True)
_libc.unshare.argtypes = [ctypes.c_int]
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

_ZYGOTE_PID = os.getpid()
_BASE_ENV = {k: v for k, v in os.environ.items() if k != "HERMES_MCP_WORKER_TAG"}
_holders = {}  # holder pid -> unit id, until reaped
_wake = None  # (read, write) ends of the SIGCHLD wake-up pipe


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, "%s: %s" % (what, os.strerror(err)))


def _die_with_parent(parent_pid):
    """SIGKILL when the parent dies; exits at once if it already has (the race prctl leaves)."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    if _parent_pid() != parent_pid:
        os._exit(1)


def _parent_pid():
    """The parent's pid as the gateway sees it. getppid() says 0 in a new namespace's init, whose
    parent is outside it; the outer /proc (still mounted until the init mounts its own) does not."""
    if os.getpid() != 1:
        return os.getppid()
    with open("/proc/self/stat", "rb") as f:
        stat = f.read()
    return int(stat[stat.rindex(b")") + 2:].split()[1])


def _outer_pid():
    """This process's pid in the gateway's namespace, read before the init mounts its own /proc."""
    return int(os.readlink("/proc/self"))


def _write_file(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _new_namespaces():
    """unshare(2) as ``unshare [--map-root-user] --pid --mount`` with private propagation."""
    uid, gid = os.getuid(), os.getgid()
    user = uid != 0
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID | (CLONE_NEWUSER if user else 0)), "unshare")
    if user:
        _write_file("/proc/self/setgroups", "deny")
        _write_file("/proc/self/uid_map", "0 %d 1" % uid)
        _write_file("/proc/self/gid_map", "0 %d 1" % gid)
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")


def _mount_proc():
    _check(_libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")


def _connect(path, preamble):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(preamble)
    return sock.detach()


def _frame(obj):
    body = json.dumps(obj).encode("utf-8")
    return len(body).to_bytes(4, "big") + body


def _init(request, holder_pid):
    """PID 1 of the unit's namespace: set up exactly like a spawned unit's process."""
    _die_with_parent(holder_pid)
    pid = _outer_pid()
    _mount_proc()
    os.chdir(request["cwd"])
    env = dict(_BASE_ENV)
    env.update(request["env"])
    os.environ.clear()
    os.environ.update(env)
    head = request["id"].encode() + request["token"].encode()
    fds = [_connect(request["socket"], kind + head) for kind in UNIT_KINDS]
    hello = _frame({"type": "hello", "pid": pid})
    view = memoryview(hello)
    while view:
        view = view[os.write(fds[2], view):]
    for fd, targets in zip(fds, ((0, 1), (2,), (CONTROL,))):
        for target in targets:
            os.dup2(fd, target)
        os.close(fd)
    # The token is spent: the gateway accepts each of the three connections once, then no more.


def _holder(request):
    """Makes the namespaces and forks the init; the holder itself waits for the init and exits
    with its status. Returns in the init, set up and ready to run ``unit.main()``."""
    _die_with_parent(_ZYGOTE_PID)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in (CONTROL,) + (_wake or ()):
        os.close(fd)
    _new_namespaces()
    me = os.getpid()
    child = os.fork()
    if child == 0:
        _init(request, me)
        return
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        _exit_by_signal(os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def _unit(request):
    """Runs in a holder the zygote just forked. Returns (or raises SystemExit...) only in the unit's
    script process, once its script has run: everything else here ends with os._exit. The script
    process must get back to the module's top level with nothing of the zygote's on its stack, so
    that its interpreter finishes exactly as ``python3 unit.py`` would (SystemExit, atexit, stdio
    flushed, threads joined)."""
    try:
        _holder(request)
    except BaseException as exc:  # noqa: BLE001 - holder or init: nothing may return into the loop
        _setup_failed(exc)
    gc.enable()
    unit.main()


def _exit_by_signal(signo):
    try:
        signal.signal(signo, signal.SIG_DFL)
    except (OSError, ValueError):
        pass  # SIGKILL and SIGSTOP are always fatal already
    os.kill(os.getpid(), signo)
    os._exit(128 + signo)


def _setup_failed(exc):
    try:
        os.write(2, ("execute unit setup failed: %s: %s\n" % (type(exc).__name__, exc)).encode())
    except OSError:
        pass
    os._exit(127)


def _run_or_exit(fn, *args):
    """Runs a forked child's part; whatever happens, the child never returns into the caller."""
    try:
        fn(*args)
    except BaseException as exc:  # noqa: BLE001 - reported on the zygote's stderr
        _setup_failed(exc)
    os._exit(127)


def _self_test():
    """Forks one unit-shaped holder/init that only mounts /proc: None if units can be made here,
    else the reason (read from what the failed child wrote on a pipe)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 2)

        def probe():
            _die_with_parent(_ZYGOTE_PID)
            _new_namespaces()
            me = os.getpid()
            child = os.fork()
            if child == 0:
                def init():
                    _die_with_parent(me)
                    _outer_pid()
                    _mount_proc()
                    if os.getpid() != 1 or not os.path.exists("/proc/1/stat"):
                        raise OSError("the new namespace's init is not PID 1 with its own /proc")
                    os._exit(0)

                _run_or_exit(init)
            _, status = os.waitpid(child, 0)
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)

        _run_or_exit(probe)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        why = f.read().decode("utf-8", "replace").strip()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        return None
    return why or "the probe unit exited with %s" % os.waitstatus_to_exitcode(status)


def _send(obj):
    view = memoryview(_frame(obj))
    while view:
        view = view[os.write(CONTROL, view):]


def _spawn(request):
    """Forks a holder: True in the holder (which leaves the loop), False here."""
    try:
        pid = os.fork()
    except OSError as exc:
        _send({"type": "exit", "id": request["id"], "code": None, "signal": None, "error": "fork failed: %s" % exc})
        return False
    if pid == 0:
        return True
    _holders[pid] = request["id"]
    return False


def _kill(unit_id):
    for pid, owner in _holders.items():
        if owner == unit_id:
            os.kill(pid, signal.SIGKILL)  # still ours (not reaped), so the pid is still its


def _reap():
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        unit_id = _holders.pop(pid, None)
        if unit_id is None:
            continue  # an init whose holder died first, adopted as the subreaper: reaped, nothing to say
        if os.WIFSIGNALED(status):
            _send({"type": "exit", "id": unit_id, "code": None, "signal": os.WTERMSIG(status)})
        else:
            _send({"type": "exit", "id": unit_id, "code": os.WEXITSTATUS(status), "signal": None})


def _shutdown():
    """The gateway closed the channel: kill every unit still here, reap everything, exit."""
    for pid in list(_holders):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    os._exit(0)


def _handle(request):
    """True in a newly forked holder."""
    kind = request.get("type")
    if kind == "spawn":
        return _spawn(request)
    if kind == "kill":
        _kill(request.get("id"))
    elif kind == "shutdown":
        _shutdown()
    return False


def serve():
    """The zygote's loop. Returns only in a newly forked holder, with its request."""
    global _wake
    # Objects made before the first fork are never collected (gc.freeze below): a collection in a
    # unit would otherwise write to every one of them and copy the pages they share with this process.
    gc.disable()
    _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(PR_SET_CHILD_SUBREAPER)")
    why = _self_test()
    if why is not None:
        # Said once; the gateway logs it, serves without a zygote and closes this channel.
        _send({"type": "unavailable", "reason": why})
        while os.read(CONTROL, 1 << 16):
            pass
        os._exit(0)
    _wake = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(_wake[1], warn_on_full_buffer=False)
    poller = select.poll()
    poller.register(CONTROL, select.POLLIN)
    poller.register(_wake[0], select.POLLIN)
    gc.freeze()
    _send({"type": "ready"})
    pending = b""
    while True:
        for fd, _ in poller.poll():
            if fd == _wake[0]:
                try:
                    os.read(_wake[0], 4096)
                except BlockingIOError:
                    pass
                continue
            chunk = os.read(CONTROL, 1 << 16)
            if not chunk:
                _shutdown()
            pending += chunk
            while len(pending) >= 4:
                size = int.from_bytes(pending[:4], "big")
                if len(pending) < 4 + size:
                    break
                body, pending = pending[4:4 + size], pending[4 + size:]
                request = json.loads(body)
                if _handle(request):
                    return request
        _reap()


if __name__ == "__main__":
    try:
        _request = serve()
    except BaseException as exc:  # noqa: BLE001 - the gateway logs the exit; say why on stderr
        sys.stderr.write("unit zygote failed: %s: %s\n" % (type(exc).__name__, exc))
        sys.stderr.flush()
        os._exit(1)
    _unit(_request)
    # Only a unit's script process gets here, its script run: the interpreter now finishes as usual.
