"""Hermes' redaction (agent/redact.py redact_sensitive_text) on each case's text, in each of its
modes: the default (logs, tool output in general), code_file=True (source or command output) and
file_read=True (file content handed to the agent; implies code_file). Each case answers
{"default", "code_file", "file_read"}.

Redaction is on by default in Hermes: agent/redact.py reads HERMES_REDACT_SECRETS once, at import,
defaulting to "true" (config.yaml security.redact_secrets is bridged to that variable). The driver
leaves it unset and refuses to answer if Hermes came up with redaction off, so a stray variable
cannot turn every case into an identity comparison."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from agent import redact  # noqa: E402

if not redact._REDACT_ENABLED:
    raise SystemExit("Hermes' redaction is off in this environment (HERMES_REDACT_SECRETS)")


def handle(case, request):
    text = case["text"]
    return {
        "default": redact.redact_sensitive_text(text),
        "code_file": redact.redact_sensitive_text(text, code_file=True),
        "file_read": redact.redact_sensitive_text(text, file_read=True),
    }


serve(handle)
