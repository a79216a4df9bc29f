"""Pre-spawnable execute_code launcher.

Started as ``python3 <this file>`` with cwd and environment already set, or called as ``_run``
by an execute_code unit's init (``unit.py``) in the script process it forks. The interpreter starts
(and can sit pre-warmed) before the script exists: it blocks reading the user's code from stdin
until EOF, then runs it as ``__main__``:

- this file's directory is first on ``sys.path``, so ``from hermes_tools import ...`` works;
- the code is compiled with filename ``<execute_code>`` and its source is registered with
  ``linecache`` as soon as anything imports it (traceback, inspect, warnings...), so tracebacks show
  the offending source lines; linecache itself (with tokenize and re) is not imported up front;
- it runs in a fresh ``__main__`` module that replaces this launcher's in ``sys.modules``: the
  script's globals hold only ``__name__``, ``__doc__``, ``__builtins__`` etc., never launcher state;
- ``SystemExit`` behaves as in a normal script (status and message); any other uncaught exception
  prints a traceback (launcher frames removed; a ``sys.excepthook`` the script installed is
  honoured) and exits with status 1 (``KeyboardInterrupt`` ends the process by SIGINT, like
  CPython);
- once the code is read, stdin is re-pointed at /dev/null, as Hermes starts its child with
  ``stdin=DEVNULL``.

Python 3.9+, standard library only.
"""

import sys


def _decode(source):
    """The script's text, decoded as the compiler will (PEP 263 cookie or BOM, else UTF-8)."""
    head = source.split(b"\n", 2)[:2]
    if not source.startswith(b"\xef\xbb\xbf") and not any(b"coding" in line for line in head):
        return source.decode("utf-8", errors="replace")
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding, errors="replace")
    except (SyntaxError, LookupError):
        return source.decode("utf-8", errors="replace")


class _SeedLinecache:
    """Registers the script's source with ``linecache`` the moment anything imports it (traceback,
    inspect, warnings, logging...), or at once if it already is. Importing linecache (and with it
    tokenize and re) up front would cost every call, and every prepared unit, several milliseconds."""

    def __init__(self, filename, entry):
        self.filename = filename
        self.entry = entry

    def install(self):
        if "linecache" in sys.modules:
            sys.modules["linecache"].cache[self.filename] = self.entry
        else:
            sys.meta_path.insert(0, self)

    def find_spec(self, name, path=None, target=None):
        if name != "linecache":
            return None
        sys.meta_path.remove(self)  # one use: later imports find the module in sys.modules
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None and spec.loader is not None and not isinstance(spec.loader, type):
                load = spec.loader.exec_module  # a per-spec loader instance: wrapping it is local
                seed = self

                def exec_module(module):
                    load(module)
                    module.cache[seed.filename] = seed.entry

                spec.loader.exec_module = exec_module
                return spec
        return None


def _run(ready=None):
    """``ready`` (optional) is called once warmed up, just before blocking on stdin."""
    import os
    import types

    # As Hermes' PYTHONDONTWRITEBYTECODE=1: never write __pycache__ next to this file (or anywhere).
    sys.dont_write_bytecode = True
    here = os.path.dirname(os.path.abspath(__file__))
    if not sys.path or sys.path[0] != here:
        sys.path.insert(0, here)
    # Warm the tool module (json, socket, threading...) while no code is waiting; it connects to
    # the RPC socket only on its first call.
    try:
        import hermes_tools  # noqa: F401
    except Exception:  # noqa: BLE001 - the script's own import will report it
        pass

    if ready is not None:
        ready()
    source = sys.stdin.buffer.read()  # blocks until the code arrives and stdin closes

    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        sys.stdin = open(0, "r", closefd=False)
    except OSError:
        pass

    filename = "<execute_code>"
    text = _decode(source)
    # mtime None: linecache.checkcache() keeps the entry (it cannot stat a pseudo-file).
    _SeedLinecache(filename, (len(text), None, text.splitlines(True), filename)).install()

    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    sys.argv = [filename] + sys.argv[1:]

    try:
        code = compile(source, filename, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - report like the interpreter would
        tb = exc.__traceback__
        # Drop this launcher's own frames so the traceback starts in the user's code.
        own = _run.__code__.co_filename
        while tb is not None and tb.tb_frame.f_code.co_filename == own:
            tb = tb.tb_next
        # The default hook prints exc.__traceback__ when set, whatever tb it is given.
        exc.__traceback__ = tb
        if sys.excepthook is sys.__excepthook__:
            # The traceback module reads source lines through linecache (the C hook opens files
            # by name, so it could not show <execute_code> lines).
            import traceback
            traceback.print_exception(type(exc), exc, tb)
        else:
            sys.excepthook(type(exc), exc, tb)
        if isinstance(exc, KeyboardInterrupt):
            import signal
            sys.stdout.flush()
            sys.stderr.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        sys.exit(1)


if __name__ == "__main__":
    _run()
