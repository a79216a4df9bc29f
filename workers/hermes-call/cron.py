"""Hermes' own cron code, for the gateway's cronjob tool (supervisor/tools/guarded/cron/mutations.ts).

The gateway has already done its own checks (the host's permission, ``confirm``, the arguments it
allows, delivery defaulting to local, workdir inside its roots); what a job record is, how a
schedule reads, which prompts are refused and how jobs.json is written are the detected Hermes'
own: every mutation runs through Hermes' ``cronjob()`` tool function (tools/cronjob_tools.py) or,
for ``run``, Hermes' ``trigger_job`` (cron/jobs.py), in one critical section under Hermes' own
lock (``cron.jobs._jobs_lock``, flock on ``cron/.jobs.lock``).

Operations (``handle(op, payload, commit)``; ``commit`` is run.py's point of no return):

- ``create``, ``update``, ``pause``, ``resume``, ``remove``: ``payload["args"]`` are the arguments
  of Hermes' ``cronjob(action=op, ...)`` (only those this Hermes' function takes; another is an
  ``unsupported`` failure). Answers ``{"answer": <Hermes' tool answer>}``, or when Hermes refused
  ``{"refused": <class>, "answer": <Hermes' answer>}``. The class is found by asking the Hermes
  check that gives that very message (never by reading its wording): ``ambiguous``, ``not_found``,
  ``prompt_blocked``, ``schedule_invalid``, ``store_invalid`` (a jobs.json Hermes cannot read),
  ``os_error`` (an OSError Hermes met, e.g. a full or read-only disk), else ``refused``.
- ``run``: ``payload["args"]`` = ``{"job_id", "prompt"?}``. The gateway never executes a job: a
  runnable job gets Hermes' ``trigger_job`` (next_run_at now, and on a Hermes that has it
  ``manual_run_at``, the scheduler's run-now mark, and the transient ``manual_run_prompt``);
  a paused or disabled job is left as it is. Answers ``{"queued": job}`` or ``{"skipped": job}``
  (Hermes' ``_format_job``), or ``{"refused": ...}`` as above.
- ``liveness``: Hermes' own answer to "will these jobs fire" (``_gateway_liveness_notice``, the
  list action's ``gateway_running``/``warning``); ``unsupported`` on a Hermes without it.

``payload["lock_wait_seconds"]`` bounds the wait for Hermes' lock. Hermes itself goes on without
the lock once its wait is over (it prefers a torn write to a dead scheduler); here the wait is the
gateway's, and a section that does not hold the lock answers ``{"lock": reason}`` before anything
is written. A mutation (and ``run``) calls ``commit()`` once the lock is confirmed held, right
before Hermes' load and change: until the gateway lets it proceed nothing of Hermes' jobs has been
touched, so a call cancelled or stopped while it waits for the lock has written nothing.
``liveness`` changes nothing and never commits.

Two refusals are the gateway's, stricter than Hermes: on update and run the prompt also goes
through Hermes' own gateway-lifecycle guard (cron/lifecycle_guard.py ``check_gateway_lifecycle``),
which Hermes applies on create only (an edited or one-off prompt that restarts Hermes' gateway is
the same respawn loop); and an interval under one minute ('every 0m', which Hermes' parse_schedule
accepts) is refused, as it would fire the job on every scheduler tick.
"""

import inspect
import json
import os

MUTATIONS = ("create", "update", "pause", "resume", "remove")


def _no_session_origin():
    # A call from the gateway is no Hermes chat session: it must not pick up an origin (and with it
    # a delivery target) from session variables the gateway's environment may happen to carry.
    for name in list(os.environ):
        if name.startswith("HERMES_SESSION_") or name == "HERMES_CRON_SESSION":
            del os.environ[name]


def _lock_held_here(lock_path):
    """Whether this process holds the flock on ``lock_path`` (Linux: /proc/self/fdinfo lists it)."""
    try:
        target = os.stat(lock_path)
    except OSError:
        return False
    for fd in os.listdir("/proc/self/fd"):
        try:
            if not os.path.samestat(os.fstat(int(fd)), target):
                continue
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii", errors="replace") as info:
                if any(line.startswith("lock:") and " FLOCK " in line and " WRITE " in line for line in info):
                    return True
        except (OSError, ValueError):
            continue
    return False


def _os_error(exc):
    return {"refused": "os_error", "answer": {"success": False, "error": f"{exc}"}}


def _resolution_refusal(tool, ref):
    """Hermes' own answer for a job reference it cannot resolve (missing or ambiguous), or None."""
    from cron import jobs

    try:
        if jobs.resolve_job_ref(ref) is not None:
            return None
    except jobs.AmbiguousJobReference:
        pass
    # Hermes' tool resolves the reference before it looks at the action, so an action it does not
    # have answers exactly its refusal for that reference and changes nothing.
    answer = json.loads(tool.cronjob(action="-", job_id=ref))
    return {"refused": "ambiguous" if "matches" in answer else "not_found", "answer": answer}


def _lifecycle_refusal(prompt):
    from cron.lifecycle_guard import GatewayLifecycleBlocked, check_gateway_lifecycle

    try:
        check_gateway_lifecycle(prompt)
    except GatewayLifecycleBlocked as exc:
        return {"refused": "prompt_blocked", "answer": {"success": False, "error": str(exc)}}
    return None


def _classify(op, args, answer, found):
    """Which Hermes check gave the refusal ``answer`` (see the module's docstring)."""
    from cron import jobs
    from cron.lifecycle_guard import GatewayLifecycleBlocked, check_gateway_lifecycle
    import tools.cronjob_tools as tool

    error = answer.get("error")
    if "matches" in answer:
        return "ambiguous"
    if op != "create" and not found:
        return "not_found"
    prompt = args.get("prompt")
    if prompt and tool._scan_cron_prompt(prompt) == error:
        return "prompt_blocked"
    if prompt and op == "create":
        for text in (prompt, prompt.strip()):
            try:
                check_gateway_lifecycle(text)
            except GatewayLifecycleBlocked as exc:
                if str(exc) == error:
                    return "prompt_blocked"
    schedule = args.get("schedule")
    if schedule is not None:
        try:
            parsed = jobs.parse_schedule(schedule)
        except ValueError as exc:
            if str(exc) == error:
                return "schedule_invalid"
        else:
            if parsed.get("kind") == "once" and jobs.compute_next_run(parsed) is None:
                return "schedule_invalid"  # a one-shot time already past Hermes' grace window
    refs = args.get("context_from") or []
    if any(jobs.get_job(ref) is None for ref in refs):
        return "not_found"
    if isinstance(error, str) and error.startswith("[Errno "):
        return "os_error"
    return "refused"


def _mutate(op, args):
    from cron import jobs
    import tools.cronjob_tools as tool

    found = True
    if op != "create":
        try:
            found = jobs.resolve_job_ref(args["job_id"]) is not None
        except jobs.AmbiguousJobReference:
            found = True
    schedule = args.get("schedule")
    if schedule is not None and found:
        try:
            parsed = jobs.parse_schedule(schedule)
        except ValueError:
            parsed = {}  # Hermes' tool refuses it with its own message
        if parsed.get("kind") == "interval" and not parsed.get("minutes", 0) >= 1:
            return {"refused": "schedule_invalid", "answer": {"success": False, "error": f"Invalid schedule '{schedule}': an interval must be at least one minute (a shorter one would fire the job on every scheduler tick)."}}
    prompt = args.get("prompt")
    if op == "update" and found and prompt and not tool._scan_cron_prompt(prompt):
        blocked = _lifecycle_refusal(prompt)
        if blocked:
            return blocked
    answer = json.loads(tool.cronjob(action=op, **args))
    if answer.get("success") is False:
        return {"refused": _classify(op, args, answer, found), "answer": answer}
    return {"answer": answer}


def _run(args):
    from cron import jobs
    import tools.cronjob_tools as tool

    ref = args["job_id"]
    refusal = _resolution_refusal(tool, ref)
    if refusal:
        return refusal
    job = jobs.resolve_job_ref(ref)
    prompt = args.get("prompt") or None
    if prompt:
        scan = tool._scan_cron_prompt(prompt)
        if scan:
            return {"refused": "prompt_blocked", "answer": {"success": False, "error": scan}}
        blocked = _lifecycle_refusal(prompt)
        if blocked:
            return blocked
    runnable = getattr(jobs, "is_job_runnable", None)
    # Hermes' run claim refuses a paused or disabled job and leaves it as it is: 0.19's
    # claim_job_for_fire tests `not enabled or state == "paused"`; later Hermes names the rule
    # is_job_runnable.
    if not (runnable(job) if runnable else (job.get("enabled", True) and job.get("state") != "paused")):
        return {"skipped": tool._format_job(job)}
    trigger = jobs.trigger_job
    if prompt and "extra_prompt" not in inspect.signature(trigger).parameters:
        raise AttributeError("this Hermes' trigger_job takes no run prompt (extra_prompt)")
    try:
        updated = trigger(job["id"], extra_prompt=prompt) if prompt else trigger(job["id"])
    except ValueError as exc:  # e.g. a terminal (completed) job
        return {"refused": "refused", "answer": {"success": False, "error": str(exc)}}
    tool._notify_provider_jobs_changed_safe()
    return {"queued": tool._format_job(updated)}


def handle(op, payload, commit):
    if op not in MUTATIONS + ("run", "liveness"):
        raise KeyError(op)
    _no_session_origin()
    from cron import jobs
    import tools.cronjob_tools as tool

    if op == "liveness":
        return tool._gateway_liveness_notice(plural=True)

    args = dict(payload["args"])
    if op in MUTATIONS:
        accepted = inspect.signature(tool.cronjob).parameters
        for name in args:
            if name not in accepted:
                raise AttributeError(f"this Hermes' cronjob tool takes no '{name}'")
    # What the tool imports on first use, imported before the lock is taken so the lock is held
    # for the change alone.
    for module in ("cron.scheduler", "cron.lifecycle_guard"):
        try:
            __import__(module)
        except ImportError:
            pass
    try:
        jobs.ensure_dirs()
        lock_path = str(jobs._jobs_lock_file())
        open(lock_path, "a+", encoding="utf-8").close()
    except OSError as exc:
        return _os_error(exc)
    jobs._JOBS_LOCK_TIMEOUT_SECONDS = float(payload["lock_wait_seconds"])
    with jobs._jobs_lock():
        if not _lock_held_here(lock_path):
            return {"lock": f"Hermes' cron/.jobs.lock was not free within {payload['lock_wait_seconds']} s (another Hermes process holds it)"}
        # The point of no return: past it Hermes may save at any moment.
        commit()
        try:
            jobs.load_jobs()
        except Exception as exc:  # a store Hermes cannot read (it repairs the shapes it can)
            return {"refused": "store_invalid", "answer": {"success": False, "error": str(exc)}}
        return _run(args) if op == "run" else _mutate(op, args)
