"""honcho_identity: the names Hermes' Honcho provider derives from a honcho.json variant
(plugins/memory/honcho/client.py HonchoClientConfig.from_global_config, resolve_active_host,
resolve_config_path, get_honcho_client; session.py HonchoSessionManager._resolve_user_peer_id and
get_or_create's assistant peer; the provider's _resolve_session_key). Each case names its own HOME
and HERMES_HOME (the test lays the files out); the environment of the case is set for it alone.
Where the case's HERMES_HOME or its managed scope (HERMES_MANAGED_DIR) has a .env, Hermes' own
loader reads them first, as the hermes command does at startup (hermes_cli/env_loader.py
load_hermes_dotenv: the home's file over the process environment, the managed scope's last, over
both). No network: the SDK client is only constructed."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from oracle import serve  # noqa: E402

from plugins.memory.honcho import client as honcho_client  # noqa: E402
from plugins.memory.honcho.client import HonchoClientConfig, get_honcho_client, reset_honcho_client  # noqa: E402
from plugins.memory.honcho.session import HonchoSessionManager  # noqa: E402
from plugins.memory.honcho import HonchoMemoryProvider  # noqa: E402

CASE_ENV = ("HOME", "HERMES_HOME", "HERMES_MANAGED_DIR", "HERMES_HONCHO_HOST", "HERMES_PROFILE", "HONCHO_API_KEY", "HONCHO_BASE_URL", "HONCHO_URL", "HONCHO_ENVIRONMENT", "HONCHO_TIMEOUT")
BASE = dict(os.environ)


def handle(case, _request):
    for k in CASE_ENV:
        os.environ.pop(k, None)
        if k in BASE and k not in ("HONCHO_API_KEY", "HONCHO_BASE_URL", "HONCHO_URL", "HONCHO_ENVIRONMENT", "HERMES_HONCHO_HOST", "HERMES_PROFILE"):
            os.environ[k] = BASE[k]
    os.environ["HOME"] = case["home"]
    os.environ["HERMES_HOME"] = case["hermes_home"]
    for k, v in (case.get("env") or {}).items():
        os.environ[k] = v
    managed = os.environ.get("HERMES_MANAGED_DIR", "")
    if os.path.exists(os.path.join(case["hermes_home"], ".env")) or (managed and os.path.exists(os.path.join(managed, ".env"))):
        from hermes_cli.env_loader import load_hermes_dotenv

        load_hermes_dotenv(hermes_home=case["hermes_home"])
    reset_honcho_client()
    os.chdir(case["cwd"])

    cfg = HonchoClientConfig.from_global_config()
    if not (cfg.enabled and (cfg.api_key or cfg.base_url)):
        return {"configured": False}
    manager = HonchoSessionManager(honcho=None, config=cfg, context_tokens=cfg.context_tokens)
    session_key = HonchoMemoryProvider()._resolve_session_key(cfg, "")
    client = get_honcho_client(cfg)
    from plugins.memory.honcho.session import HonchoSession
    names = HonchoSession(key=session_key, user_peer_id=manager._resolve_user_peer_id(session_key), assistant_peer_id=manager._sanitize_id(cfg.ai_peer), honcho_session_id=manager._sanitize_id(session_key))
    observer, _target = manager._resolve_observer_target(names, "user")
    return {
        "hermes_assistant_peer": names.assistant_peer_id,
        "read_observer": observer,
        "configured": True,
        "host": cfg.host,
        "workspace": cfg.workspace_id,
        "user_peer": manager._resolve_user_peer_id(session_key),
        "assistant_peer": manager._sanitize_id(cfg.ai_peer),
        "session": manager._sanitize_id(session_key),
        "base_url": client._http_config["base_url"],
        "api_key": client._http_config["api_key"],
    }


serve(handle)
