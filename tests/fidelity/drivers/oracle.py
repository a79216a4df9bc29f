"""The fidelity drivers' one loop: the request ({"cases": [...], ...}) on stdin, each case handed to
the surface's handle(case, request), and one JSON line at the end: a list of {"id", "result"} or,
when Hermes' function raised, {"id", "raised": "Type: message"}. The last stdout line is the answer
(Hermes may print before it)."""

import json
import sys


def serve(handle):
    request = json.loads(sys.stdin.read())
    answers = []
    for case in request["cases"]:
        try:
            answers.append({"id": case["id"], "result": handle(case, request)})
        except Exception as exc:  # the case's answer is that Hermes raised
            answers.append({"id": case["id"], "raised": f"{type(exc).__name__}: {exc}"})
    sys.stdout.write("\n" + json.dumps(answers) + "\n")
    sys.stdout.flush()
