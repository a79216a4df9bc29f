"""Hermes' own in-process syntax checks (``LINTERS_INPROC``), for write_file and patch.

``check``: ``{"ext": ".py", "texts": [text, ...]}`` -> ``{"checker": ..., "results": [[ok, error], ...]}``:
for each text, what Hermes' in-process linter for ``ext`` answers (``(ok, error)``, ``error``
``"__SKIP__"`` when the linter's dependency is missing), or ``"results": null`` when this Hermes has
no in-process linter for ``ext``. Hermes keeps the table in ``tools/file_operations_lint.py`` (0.22
on) or ``tools/file_operations.py`` (before); ``checker`` is ``"hermes"``.

Where no Hermes Agent is installed the gateway runs this module in the system ``python3`` instead:
Hermes' table does not import, and Python and TOML are checked with the standard library's own
parsers (``ast.parse``, ``tomllib.loads``) answering in the form Hermes' linters use; ``checker`` is
``"python"`` then. Nothing is written or read here: the gateway hands the texts over.
"""

import ast


def _hermes_linters():
    try:
        from tools.file_operations_lint import LINTERS_INPROC
    except ImportError:
        from tools.file_operations import LINTERS_INPROC
    return LINTERS_INPROC


def _python(text):
    try:
        ast.parse(text.encode("utf-8", "surrogateescape"))
    except SyntaxError as exc:
        where = f" (line {exc.lineno}, column {exc.offset})" if exc.lineno else ""
        return False, f"{type(exc).__name__}: {exc.msg}{where}"
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


def _toml(text):
    try:
        import tomllib
    except ImportError:
        return True, "__SKIP__"
    try:
        tomllib.loads(text)
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


STANDARD = {".py": _python, ".toml": _toml}


def handle(op, payload, commit):  # a check changes nothing: it never commits
    if op != "check":
        raise KeyError(op)
    ext = payload["ext"]
    texts = payload["texts"]
    try:
        linters, checker = _hermes_linters(), "hermes"
    except ImportError:
        if not payload.get("without_hermes"):
            raise
        linters, checker = STANDARD, "python"
    linter = linters.get(ext)
    if linter is None:
        return {"checker": checker, "results": None}
    return {"checker": checker, "results": [list(linter(text)) for text in texts]}
