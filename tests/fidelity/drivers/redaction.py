"""Hermes' redaction (agent/redact.py) on each case's text, in each mode a supported Hermes has:

- default: redact_sensitive_text(text) (logs, tool output in general);
- code_file: code_file=True (source; execute_code's output);
- file_read: file_read=True (file content handed to the agent; implies code_file);
- secret_file: what read_file shows of a secret-bearing file (a shell rc, an .env-type file,
  Hermes' own config.yaml): file_read=True, secret_file=True in a Hermes that has the parameter
  (newer Hermes, tools/file_tools.py); 0.19 has none and reads every file with file_read=True, so
  that is its answer;
- terminal: redact_terminal_output(text, command) (terminal and process output), with the case's
  `command`, `cat sample.txt` when it has none.

Each case answers {"default", "code_file", "file_read", "secret_file", "terminal"}.

Redaction is on by default in Hermes: agent/redact.py reads HERMES_REDACT_SECRETS at import,
defaulting to "true" (config.yaml security.redact_secrets is bridged to that variable; newer Hermes
reads it per profile through _redact_enabled()). The driver leaves it unset and refuses to answer
if Hermes came up with redaction off, so a stray variable cannot turn every case into an identity
comparison."""

import inspect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from agent import redact  # noqa: E402

enabled = redact._redact_enabled() if hasattr(redact, "_redact_enabled") else redact._REDACT_ENABLED
if not enabled:
    raise SystemExit("Hermes' redaction is off in this environment (HERMES_REDACT_SECRETS)")

HAS_SECRET_FILE = "secret_file" in inspect.signature(redact.redact_sensitive_text).parameters


def handle(case, request):
    text = case["text"]
    file_read = redact.redact_sensitive_text(text, file_read=True)
    return {
        "default": redact.redact_sensitive_text(text),
        "code_file": redact.redact_sensitive_text(text, code_file=True),
        "file_read": file_read,
        "secret_file": redact.redact_sensitive_text(text, file_read=True, secret_file=True) if HAS_SECRET_FILE else file_read,
        "terminal": redact.redact_terminal_output(text, case.get("command") or "cat sample.txt"),
    }


serve(handle)
