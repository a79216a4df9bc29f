"""Hermes' own cron code on each cronjob case, one cron store per case (cron.jobs.use_cron_store on
<root>/<case id>), HERMES_HOME giving the configuration (provider, timezone).

phase "act": the case's `setup` steps through cron.jobs (create_job, update_job, pause_job,
mark_job_run; a job is named by its name), then its `call` through the cronjob tool's registered
handler (`cronjob`, `cronjob_manage` in later Hermes) (tools/cronjob_tools.py: the model-facing defaults, e.g. list's include_disabled=True), with
"@<name>" in job_id / context_from replaced by that job's id. Answers {"before": jobs.json text
after the setup (null when there is none), "ids": {name: id}, "t_call": time before the call,
"answer": the tool's parsed answer, "file": jobs.json text after it, "readback": readback()}.

phase "readback": readback() of <root>/<case id>/cron/jobs.json as it is (a gateway wrote it).

readback() reads a copy of the store the way Hermes' scheduler does: load_jobs() (the records),
the cronjob tool's list (every job, as Hermes formats it), get_due_jobs() (the ids due now) and
compute_next_run(schedule, last_run_at) of each record; "at" is when it read it."""

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import serve  # noqa: E402

from cron import jobs  # noqa: E402
import tools.cronjob_tools  # noqa: E402,F401  (registers the cronjob tool)
from tools.registry import registry  # noqa: E402

# The tool as Hermes registers it for its model: `cronjob` in 0.19, `cronjob_manage` in later Hermes.
cronjob_handler = (registry.get_entry("cronjob_manage") or registry.get_entry("cronjob")).handler


def jobs_text(store):
    path = Path(store) / "cron" / "jobs.json"
    return path.read_text(encoding="utf-8") if path.exists() else None


def readback(store):
    at = time.time()  # next runs of intervals count from now: the caller stabilises them from here
    text = jobs_text(store)
    scratch = tempfile.mkdtemp(prefix="cronjob-readback-")
    try:
        if text is not None:
            os.makedirs(os.path.join(scratch, "cron"))
            shutil.copyfile(os.path.join(store, "cron", "jobs.json"), os.path.join(scratch, "cron", "jobs.json"))
        with jobs.use_cron_store(scratch):
            records = jobs.load_jobs()
            listed = json.loads(cronjob_handler({"action": "list", "include_disabled": True}))
            due = [j["id"] for j in jobs.get_due_jobs()]
            next_runs = {str(j.get("id")): jobs.compute_next_run(j.get("schedule"), j.get("last_run_at")) for j in records}
        return {"jobs": records, "list": listed, "due": due, "next_run": next_runs, "at": at}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def resolve(value, ids):
    if isinstance(value, str) and value.startswith("@") and value[1:] in ids:
        return ids[value[1:]]
    if isinstance(value, list):
        return [resolve(v, ids) for v in value]
    return value


def act(case, store):
    ids = {}
    with jobs.use_cron_store(store):
        for step in case.get("setup") or []:
            (kind, spec), = step.items()
            if kind == "create":
                job = jobs.create_job(**spec)
                ids[job["name"]] = job["id"]
            elif kind == "update":
                jobs.update_job(ids[spec["job"]], spec["fields"])
            elif kind == "pause":
                jobs.pause_job(ids[spec["job"]], reason=spec.get("reason"))
            elif kind == "mark_run":
                jobs.mark_job_run(ids[spec["job"]], spec.get("success", True), spec.get("error"))
            else:
                raise ValueError(f"unknown setup step {kind}")
        before = jobs_text(store)
        call = {k: resolve(v, ids) for k, v in case["call"].items()}
        t_call = time.time()
        answer = json.loads(cronjob_handler(call))
    return {"before": before, "ids": ids, "t_call": t_call, "answer": answer, "file": jobs_text(store), "readback": readback(store)}


def handle(case, request):
    store = os.path.join(request["root"], case["id"])
    if request["phase"] == "act":
        os.makedirs(store, exist_ok=True)
        return act(case, store)
    return {"readback": readback(store)}


serve(handle)
