"""Which rules this Hermes' command guards have, by the description each reports (never the
regular expressions): {"hardline": [...], "dangerous": [...]} in table order (HARDLINE_PATTERNS and
DANGEROUS_PATTERNS, tools/approval.py in 0.19, tools/approval_detection.py later), and
"structural": the descriptions its checks outside those tables report (the sudo -S guard, the
parser limits, the execution findings, the spliced gateway-lifecycle check, the runtime self-delete
floor's prefix), each found by asking the check itself. Prints one JSON object."""

import json
import os

os.environ.pop("SUDO_PASSWORD", None)

import tools.approval as approval  # noqa: E402

try:  # later Hermes keeps the tables in approval_detection
    import tools.approval_detection as detection
except ImportError:
    detection = approval

structural = [
    approval._check_sudo_stdin_guard("sudo -S true")[1],
    detection._PARSER_LIMIT_DESCRIPTION,
    detection._MALFORMED_EXEC_DESCRIPTION,
]
probes = ["python3 -c x", "python3 <<EOF", "bash -c x"]
probes += [f"{tool} {flag} x" for tool, flags in detection._READ_TOOL_EXEC_FLAGS.items() for flag in sorted(flags)]
for probe in probes:
    for description, _payload in detection._execution_flag_findings(probe):
        structural.append(description)
splice = getattr(detection, "_GATEWAY_LIFECYCLE_SPLICE_DESCRIPTION", None)
if splice:
    structural.append(splice)
try:
    import agent.runtime_self_protection  # noqa: F401

    structural.append("recursive/any delete of ")
except ImportError:
    pass

print(json.dumps({
    "hardline": [d for _p, d in detection.HARDLINE_PATTERNS],
    "dangerous": [d for _p, d in detection.DANGEROUS_PATTERNS],
    "structural": list(dict.fromkeys(structural)),
}))
