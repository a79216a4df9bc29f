"""The four startup files as Hermes' own prompt builder reads them (agent/prompt_builder.py
load_soul_md, and for the project slot (".hermes.md") the project file build_context_files_prompt
loads; tools/memory_tool.py MemoryStore), for one case:
{"home": its HERMES_HOME, "project": the working directory Hermes builds the prompt for}.

Per file: `path` (the file Hermes reads, or where it looks when there is none), `present` (whether
the prompt builder loads anything from it), and when present `content` (the file's text as Hermes
reads it) and `truncated` (whether the prompt builder cut it to its size limit)."""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from agent.prompt_builder import (  # noqa: E402
    _find_hermes_md,
    _load_agents_md,
    _load_claude_md,
    _load_cursorrules,
    _load_hermes_md,
    load_soul_md,
)
from hermes_constants import get_hermes_home  # noqa: E402
from tools.memory_tool import MemoryStore, get_memory_dir  # noqa: E402

MARKER = "[...truncated "


def loaded(path, section):
    if not section:
        return {"present": False, "path": str(path)}
    return {"present": True, "path": str(path), "content": path.read_text(encoding="utf-8"), "truncated": MARKER in section}


def project_context(project):
    """The project file build_context_files_prompt loads: the first of .hermes.md / HERMES.md
    (walking up to the git root), AGENTS.md, CLAUDE.md, .cursorrules that yields anything."""
    found = _find_hermes_md(project)
    if found:
        section = _load_hermes_md(project)
        if section:
            return loaded(found, section)
    for load, names in ((_load_agents_md, ("AGENTS.md", "agents.md")), (_load_claude_md, ("CLAUDE.md", "claude.md")), (_load_cursorrules, (".cursorrules",))):
        section = load(project)
        if section:
            path = next((project / n for n in names if (project / n).exists()), project / names[0])
            return loaded(path, section)
    return loaded(found or project / ".hermes.md", "")


def handle(case, request):
    os.environ["HERMES_HOME"] = case["home"]
    project = Path(case["project"]).resolve()
    hermes_md = project_context(project)
    soul_path = get_hermes_home() / "SOUL.md"
    soul = loaded(soul_path, load_soul_md())
    memories = {}
    for name in ("MEMORY.md", "USER.md"):
        path = get_memory_dir() / name
        memories[name] = loaded(path, "\n".join(MemoryStore._read_file(path)))
    return {"files": {".hermes.md": hermes_md, "SOUL.md": soul, **memories}}


serve(handle)
