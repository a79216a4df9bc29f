"""Writes and locks a test HERMES_HOME's cron/jobs.json with Hermes' own cron.jobs, never by hand.
(Hermes' cronjob tool itself is compared with the gateway's by tests/fidelity/drivers/cronjob.py.)

Run with the Hermes venv's python, HERMES_HOME set; reads one JSON object (one line) on stdin, with
one of:
  {"create": [{"prompt": ..., "schedule": ..., "name": ..., <other create_job keywords>}],
   "update": {"<name of a job just created>": {<fields>}}}
      cron.jobs.create_job for each, then cron.jobs.update_job with the fields given for a job (by
      name); prints {"jobs": [the records as stored]}.
  {"tool": [{"action": ..., <other cronjob() arguments>}]}
      Hermes' own cronjob tool function (tools/cronjob_tools.py cronjob) for each, as Hermes' model
      calls it; prints {"answers": [its parsed answers], "jobs": [the records as stored]}.
  {"writer": {"rounds": N, "hold_ms": H, "pause_ms": P}}
      a running Hermes writing alongside the gateway: each round takes Hermes' cross-process lock
      (cron.jobs._jobs_lock, flock on cron/.jobs.lock), holds it H ms (widening the load -> save
      window a lock-ignoring writer would lose updates in), then create_job inside it (the lock is
      re-entrant); prints {"written": [ids]}.
  {"hold_lock": {"seconds": S}}
      holds cron.jobs._jobs_lock for S seconds, printing {"held": true} once it has it.
  {"due": true}
      what Hermes' scheduler would fire now: cron.jobs.get_due_jobs() (which may re-anchor stale
      records, as on every tick); prints {"due": [ids]}.
"""
import json
import sys
import time


def main():
    spec = json.loads(sys.stdin.readline())
    from cron import jobs

    if "create" in spec:
        created = [jobs.create_job(**kwargs) for kwargs in spec["create"]]
        updates = spec.get("update") or {}
        created = [jobs.update_job(j["id"], updates[j["name"]]) if j["name"] in updates else j for j in created]
        print(json.dumps({"jobs": created}), flush=True)
    elif "tool" in spec:
        import tools.cronjob_tools as tool

        answers = [json.loads(tool.cronjob(**kwargs)) for kwargs in spec["tool"]]
        print(json.dumps({"answers": answers, "jobs": jobs.load_jobs()}), flush=True)
    elif "writer" in spec:
        w = spec["writer"]
        written = []
        for i in range(int(w["rounds"])):
            with jobs._jobs_lock():
                time.sleep(float(w.get("hold_ms", 0)) / 1000.0)
                job = jobs.create_job(prompt=f"Hermes-side job {i}: check the otter feeder", schedule="every 60m", name=f"hermes-side {i}")
            written.append(job["id"])
            time.sleep(float(w.get("pause_ms", 2)) / 1000.0)
        print(json.dumps({"written": written}), flush=True)
    elif "hold_lock" in spec:
        with jobs._jobs_lock():
            print(json.dumps({"held": True}), flush=True)
            time.sleep(float(spec["hold_lock"]["seconds"]))
        print(json.dumps({"released": True}), flush=True)
    elif "due" in spec:
        print(json.dumps({"due": [job["id"] for job in jobs.get_due_jobs()]}), flush=True)
    else:
        raise SystemExit("cron_jobs.py: expected create, tool, writer, hold_lock or due")


if __name__ == "__main__":
    main()
