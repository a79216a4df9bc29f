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
  ``{"type":"kill","id"}``: SIGKILL that unit's first process (init or holder) if not yet reaped.
  ``{"type":"shutdown"}`` (or EOF): kill every unit still here, reap everything, exit 0.
- zygote -> gateway ``{"type":"ready"}`` once it has checked that it can make units here, else
  ``{"type":"unavailable","reason"}`` (and nothing more); ``{"type":"exit","id","code","signal"}``
  when a unit's first process has been reaped (its namespace is gone by then).

One unit, per request: what ``setpriv --pdeathsig KILL unshare [--map-root-user] --pid --fork
--kill-child --mount-proc python3 unit.py`` gives, made with the same system calls:

- the unit's INIT is PID 1 of a new PID namespace, in a mount namespace of its own whose ``/`` is
  private recursively (nothing mounted inside propagates out), with a fresh ``/proc``; it changes
  to the request's cwd, takes the request's environment, connects three times to the gateway's
  private unit socket (each connection starts with a kind byte, the unit id and the unit's one-time
  token): the script's stdin+stdout, its stderr, and the frame channel, which become fds 0/1, 2 and
  3 exactly as in a spawned unit, and then runs ``unit.main()`` unchanged. Its first frame is
  ``{"type":"hello","pid"}``: its pid as the gateway sees it, which the gateway SIGKILLs to end the
  whole namespace.
- Who makes the namespaces. As root, this process does: ``unshare(CLONE_NEWPID)`` only decides
  which namespace its next child is born in, and ``setns()`` back to its own undoes that at once,
  so the zygote itself never leaves its namespaces; the child is the init, and unshares its own
  mount namespace. The zygote is then what ``unshare --fork`` is: it waits for the init (and
  reports its exit), and the init has a parent-death signal on it (``--kill-child``). Without root
  a user namespace mapping root to the gateway's uid is needed as well (``--map-root-user``), and
  ``unshare(CLONE_NEWUSER)`` would move the caller itself, so a HOLDER is forked to make all three
  namespaces and fork the init; it waits for the init and exits with its status, and the init has
  its parent-death signal on the holder.

The gateway cannot hand file descriptors to a process it did not spawn (Node has no SCM_RIGHTS on
plain sockets), which is why the unit connects back instead. A parent-death signal is checked
against the parent right after it is set, so a parent that died in between is never missed: the
chain gateway -> zygote (-> holder) -> init has one on every link, and the kernel kills everything
else in a namespace when its init dies. This process is a child subreaper and reaps whatever comes
to it, so no unit leaves a zombie anywhere.

Linux only; Python 3.9+, standard library only (ctypes for unshare, mount and prctl).
"""

# Only built-in (C) modules besides ctypes: everything imported here is in every unit and is torn
# down with its script, so the json, socket and signal packages (which bring re, enum, selectors...)
# would make every unit's interpreter finalization slower.
import _json
import _signal as signal
import _socket as socket
import ctypes
import gc
import os
import select
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
MADV_POPULATE_WRITE = 23  # Linux 5.14+; older kernels refuse it (EINVAL) and nothing is pre-faulted
UNIT_KINDS = (b"o", b"e", b"f")  # stdin+stdout, stderr, frames: the order the init connects in

_libc = ctypes.CDLL(None, use_errno=True)
_libc.unshare.argtypes = [ctypes.c_int]
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]

_ZYGOTE_PID = os.getpid()
_BASE_ENV = {k: v for k, v in os.environ.items() if k != "HERMES_MCP_WORKER_TAG"}
# As root the zygote makes each unit's PID namespace itself (see the module docstring).
_DIRECT = os.getuid() == 0
# Its own PID namespace, to go back to after each unit's fork (never left open in a unit).
_OWN_PID_NS = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC) if _DIRECT else -1
_units = {}  # pid of each unit's first process (init or holder) -> unit id, until reaped
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


def _fork_unit():
    """Forks a unit's first process: as root its init, already PID 1 of a new PID namespace;
    otherwise its holder. Returns 0 in the child, as os.fork() does."""
    if not _DIRECT:
        return os.fork()
    _check(_libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    try:
        pid = os.fork()
    except OSError:
        pid = None
        raise
    finally:
        if pid != 0:
            # Back to its own namespace for its children before anything else can happen here.
            _check(_libc.setns(_OWN_PID_NS, CLONE_NEWPID), "setns(CLONE_NEWPID)")
    return pid


def _leave_zygote():
    """In the zygote's child: nothing of the zygote's loop is kept (signals, descriptors)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in (CONTROL, _OWN_PID_NS) + (_wake or ()):
        if fd >= 0:
            os.close(fd)


def _private_mounts(flags):
    """unshare(2) of a mount namespace (plus ``flags``) with ``/`` made private recursively, as
    ``unshare --mount`` does by default; a user namespace gets root mapped to the caller's uid."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWNS | flags), "unshare")
    if flags & CLONE_NEWUSER:
        _write_file("/proc/self/setgroups", "deny")
        _write_file("/proc/self/uid_map", "0 %d 1" % uid)
        _write_file("/proc/self/gid_map", "0 %d 1" % gid)
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")


def _enter_unit():
    """In the zygote's child: makes the unit's namespaces and returns in its init (PID 1, its own
    mounts, /proc not yet mounted). A holder, when there is one, waits there for the init and
    exits with its status, never returning."""
    _die_with_parent(_ZYGOTE_PID)
    _leave_zygote()
    if _DIRECT:
        _private_mounts(0)
        return
    _private_mounts(CLONE_NEWPID | CLONE_NEWUSER)
    holder = os.getpid()
    child = os.fork()
    if child == 0:
        _die_with_parent(holder)
        return
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        _exit_by_signal(os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def _mount_proc():
    _check(_libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")


def _populate_writable():
    """Copies every private writable page the script process still shares with the zygote now,
    while it waits for its code, rather than one fault at a time during its run: interpreter
    finalization writes to nearly all of them (reference counts), and that is on the call's path."""
    with open("/proc/self/maps", "rb") as f:
        maps = f.read()
    for line in maps.splitlines():
        fields = line.split()
        if fields[1] != b"rw-p" or (len(fields) > 5 and fields[5].startswith(b"[stack")):
            continue
        start, end = (int(x, 16) for x in fields[0].split(b"-"))
        _libc.madvise(start, end - start, MADV_POPULATE_WRITE)


def _connect(path, preamble):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(preamble)
    return sock.detach()


class _Decoding:
    """What the C JSON scanner reads from a decoder: plain JSON, nothing customised."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo = {}


_scan_json = _json.make_scanner(_Decoding())


def _json_value(value):
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    return _json.encode_basestring_ascii(str(value))


def _frame(obj):
    """One frame of a flat object (strings, integers, None)."""
    body = "{%s}" % ",".join("%s:%s" % (_json.encode_basestring_ascii(k), _json_value(v)) for k, v in obj.items())
    data = body.encode("ascii")
    return len(data).to_bytes(4, "big") + data


def _take_environment(extra):
    """os.environ becomes the zygote's own environment (less its worker tag) plus ``extra``, as a
    spawned unit's would be; only what differs is changed (a few putenv calls, not ~40)."""
    for name in [k for k in os.environ if k not in _BASE_ENV and k not in extra]:
        del os.environ[name]
    for name, value in extra.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def _init(request):
    """The unit's init, in its namespaces: set up exactly like a spawned unit's process."""
    pid = _outer_pid()
    _mount_proc()
    os.chdir(request["cwd"])
    _take_environment(request["env"])
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


def _unit(request):
    """Runs in a unit's first process, just forked. Returns (or raises SystemExit...) only in the
    unit's script process, once its script has run: everything else here ends with os._exit. The
    script process must get back to the module's top level with nothing of the zygote's loop on its
    stack, so that its interpreter finishes exactly as ``python3 unit.py`` would (SystemExit,
    atexit, stdio flushed, threads joined)."""
    try:
        _enter_unit()
        _init(request)
    except BaseException as exc:  # noqa: BLE001 - holder or init: nothing may return into the loop
        _setup_failed(exc)
    gc.enable()
    unit.main(prepare_script=_populate_writable)


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


def _self_test():
    """Makes one unit-shaped process tree exactly as for a unit, whose init only mounts /proc and
    checks it is PID 1: None if units can be made here, else the reason (what the failed probe
    wrote on a pipe)."""
    r, w = os.pipe()
    try:
        pid = _fork_unit()
    except OSError as exc:
        os.close(r)
        os.close(w)
        return str(exc)
    if pid == 0:
        try:
            os.close(r)
            os.dup2(w, 2)
            _enter_unit()
            _outer_pid()
            _mount_proc()
            if os.getpid() != 1 or not os.path.exists("/proc/1/stat"):
                raise OSError("the new namespace's init is not PID 1 with its own /proc")
        except BaseException as exc:  # noqa: BLE001 - the reason goes back on the pipe
            _setup_failed(exc)
        os._exit(0)
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
    """Forks a unit's first process: True in it (it leaves the loop), False here."""
    try:
        pid = _fork_unit()
    except OSError as exc:
        _send({"type": "exit", "id": request["id"], "code": None, "signal": None, "error": "fork failed: %s" % exc})
        return False
    if pid == 0:
        return True
    _units[pid] = request["id"]
    return False


def _kill(unit_id):
    for pid, owner in _units.items():
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
        unit_id = _units.pop(pid, None)
        if unit_id is None:
            continue  # an init whose holder died first, adopted as the subreaper: reaped, nothing to say
        if os.WIFSIGNALED(status):
            _send({"type": "exit", "id": unit_id, "code": None, "signal": os.WTERMSIG(status)})
        else:
            _send({"type": "exit", "id": unit_id, "code": os.WEXITSTATUS(status), "signal": None})


def _shutdown():
    """The gateway closed the channel: kill every unit still here, reap everything, exit."""
    for pid in list(_units):
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
    """True in a newly forked unit."""
    kind = request.get("type")
    if kind == "spawn":
        return _spawn(request)
    if kind == "kill":
        _kill(request.get("id"))
    elif kind == "shutdown":
        _shutdown()
    return False


def serve():
    """The zygote's loop. Returns only in a newly forked unit's first process, with its request."""
    global _wake
    # Objects made before the first fork are never collected (gc.freeze below): a collection in a
    # unit would otherwise write to every one of them and copy the pages they share with this process.
    gc.disable()
    _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(PR_SET_CHILD_SUBREAPER)")
    why = _self_test()
    if why is not None:
        # Said once; the gateway logs it and serves without a zygote. Whatever it says next (it
        # can only be its shutdown), or its closing the channel, ends this process.
        _send({"type": "unavailable", "reason": why})
        os.read(CONTROL, 1 << 16)
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
                request, _ = _scan_json(body.decode("utf-8"), 0)
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
