"""Builds a test HERMES_HOME with Hermes' own code, never by hand.

Run with the Hermes venv's python, HERMES_HOME set to the home to build; reads one JSON object on
stdin:
  {"config": {...}, "env": {"NAME": "value"}, "soul": "text", "skills": {"name": "SKILL.md text"},
   "memories": {"memory": ["entry", ...], "user": ["entry", ...]}}
- config: merged into config.yaml through hermes_cli.config (load_config, then save_config), so the
  file is the one `hermes config set` would write, with Hermes' defaults filled in;
- env: each written to $HERMES_HOME/.env by hermes_cli.config.save_env_value (mode 0600);
- soul: SOUL.md's text (default: Hermes' own default SOUL.md, written by ensure_hermes_home);
- skills: each created by the skill_manage tool's own create path (tools/skill_manager_tool.py
  _create_skill: name and frontmatter validation, security scan), under $HERMES_HOME/skills;
- memories: each entry added by the memory tool (tools/memory_tool.py memory_tool action "add" on
  the store load_on_disk_store builds, as the agent's tool call does: injection scan, char limits,
  the write-approval gate), so memories/MEMORY.md and USER.md are Hermes' own "\n§\n" files.
Prints {"home": ..., "config_path": ..., "env_path": ...}.
"""
import json
import os
import sys


def merge(into, value):
    for key, item in value.items():
        if isinstance(item, dict) and isinstance(into.get(key), dict):
            merge(into[key], item)
        else:
            into[key] = item


def main():
    spec = json.load(sys.stdin)
    from hermes_cli import config

    config.ensure_hermes_home()
    if spec.get("config"):
        cfg = config.load_config()
        merge(cfg, spec["config"])
        config.save_config(cfg)
    for name, value in (spec.get("env") or {}).items():
        config.save_env_value(name, value)
    if spec.get("skills"):
        from tools import skill_manager_tool

        for name, content in spec["skills"].items():
            created = skill_manager_tool._create_skill(name, content)
            if not created.get("success"):
                raise SystemExit(f"skill {name}: {created.get('error')}")
    memories = spec.get("memories") or {}
    if memories:
        from tools import memory_tool

        store = memory_tool.load_on_disk_store()
        for target, entries in memories.items():
            for entry in entries:
                added = json.loads(memory_tool.memory_tool(action="add", target=target, content=entry, store=store))
                if not added.get("success") or added.get("staged"):
                    raise SystemExit(f"memory {target} {entry!r}: {added.get('error') or added.get('message')}")
    home = os.environ["HERMES_HOME"]
    if "soul" in spec:
        with open(os.path.join(home, "SOUL.md"), "w", encoding="utf-8") as f:
            f.write(spec["soul"])
    print(json.dumps({"home": home, "config_path": str(config.get_config_path()), "env_path": str(config.get_env_path())}))


if __name__ == "__main__":
    main()
