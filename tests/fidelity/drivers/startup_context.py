"""The four startup files as Hermes' own prompt builder reads them (agent/prompt_builder.py
load_soul_md, _find_hermes_md / _load_hermes_md; tools/memory_tool.py MemoryStore), for one case:
{"home": its HERMES_HOME, "project": the working directory Hermes builds the prompt for}.

Per file: `path` (the file Hermes reads, or where it looks when there is none), `present` (whether
the prompt builder loads anything from it), and when present `content` (the file's text as Hermes
reads it) and `truncated` (whether the prompt builder cut it to its size limit)."""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from agent.prompt_builder import _find_hermes_md, _load_hermes_md, load_soul_md  # noqa: E402
from hermes_constants import get_hermes_home  # noqa: E402
from tools.memory_tool import MemoryStore, get_memory_dir  # noqa: E402

MARKER = "[...truncated "


def loaded(path, section):
    if not section:
        return {"present": False, "path": str(path)}
    return {"present": True, "path": str(path), "content": path.read_text(encoding="utf-8"), "truncated": MARKER in section}


def handle(case, request):
    os.environ["HERMES_HOME"] = case["home"]
    project = Path(case["project"])
    found = _find_hermes_md(project)
    hermes_md = loaded(found or project / ".hermes.md", _load_hermes_md(project) if found else "")
    soul_path = get_hermes_home() / "SOUL.md"
    soul = loaded(soul_path, load_soul_md())
    memories = {}
    for name in ("MEMORY.md", "USER.md"):
        path = get_memory_dir() / name
        memories[name] = loaded(path, "\n".join(MemoryStore._read_file(path)))
    return {"files": {".hermes.md": hermes_md, "SOUL.md": soul, **memories}}


serve(handle)
