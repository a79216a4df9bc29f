"""Hermes' own session-search query functions on each query, for comparison with the gateway's port
(supervisor/tools/guarded/session-search/fts.ts). Reads {"queries": [...]} on stdin; prints one JSON
list, per query: {"query", "sanitized" (SessionDB._sanitize_fts5_query)} plus, where this Hermes has
them (hermes_state_search.py, Hermes 0.22): "or_relaxed" (_or_relaxed_query of the sanitized query),
"trigram_eligible" (_trigram_eligible_tokens), "cjk_wildcards_stripped" (_strip_cjk_wildcards of the
sanitized query, outer quotes stripped as _search_cjk does), and "like" (_compile_like_boolean_query:
its predicate with each column clause written C, its params and snippet term)."""
import json
import sys

from hermes_state import SessionDB

try:
    import hermes_state_search as search
except ImportError:  # hermes-agent 0.19.0: search lives in hermes_state
    search = None


def one(query):
    sanitized = SessionDB._sanitize_fts5_query(query)
    out = {"query": query, "sanitized": sanitized}
    if search is None:
        return out
    mixin = search.SessionSearchMixin
    out["or_relaxed"] = mixin._or_relaxed_query(sanitized)
    out["trigram_eligible"] = mixin._trigram_eligible_tokens(sanitized)
    out["cjk_wildcards_stripped"] = search._strip_cjk_wildcards(sanitized).strip('"').strip()
    predicate, params, snippet = mixin._compile_like_boolean_query(sanitized)
    out["like"] = {"predicate": predicate.replace(search._LIKE_COALESCED_COLUMN_SQL, "C"), "params": params, "snippet_term": snippet}
    return out


queries = json.loads(sys.stdin.readline())["queries"]
print(json.dumps([one(q) for q in queries], ensure_ascii=False), flush=True)
