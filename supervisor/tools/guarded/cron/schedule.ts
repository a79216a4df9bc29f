import { Cron, CronPattern, type CronMode } from 'croner';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { anchorWall, daysInMonth, formatOffset, formatWall, isoInZone, type Wall } from './clock.js';

// Hermes' schedule forms (cron/jobs.py `parse_schedule`, `parse_duration`, `compute_next_run`),
// tried in Hermes' order:
//   "every 30m" / "every 2h" / "every 1d"   -> {kind:"interval", minutes, display:"every Nm"}
//   5-7 whitespace-separated cron fields      -> {kind:"cron", expr, display: expr}
//   ISO timestamp (has "T" or starts YYYY-MM-DD) -> {kind:"once", run_at, display:"once at ..."}
//   bare duration "30m" / "2h" / "1d"         -> {kind:"once", run_at: now + d, display:"once in 30m"}
//
// Cron expressions are evaluated with croner, configured to match croniter (Hermes pins 6.0.0):
// day-of-month and day-of-week are OR-ed when both are restricted, a field whose values cover its
// whole range counts as `*` (croniter collapses `*/1`, `1-31`, `0-6`, `0-7`), `5/15` is accepted,
// and croniter's optional extra fields keep croniter's positions (6th = seconds, 7th = year) by
// being moved to croner's (seconds first). Like Hermes, only digits and `* - , /` are allowed in
// the five standard fields (no names, no L/W/#/?).
//
// Deliberately stricter than Hermes, so a job the scheduler can never run is not written: a zero
// or absurd duration, and a one-shot time already past Hermes' 120-second grace, are refused.

export type Schedule =
  | { kind: 'interval'; minutes: number; display: string }
  | { kind: 'cron'; expr: string; display: string }
  | { kind: 'once'; run_at: string; display: string };

const ONESHOT_GRACE_SECONDS = 120;
/** Ten years: beyond this a duration is a typo, not a schedule. */
const MAX_DURATION_MINUTES = 10 * 366 * 1440;

const DURATION_RE = /^(\d+)\s*(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$/;
const CRON_FIELD_RE = /^[\d*\-,/]+$/;

/** parse_schedule's guidance, word for word. */
const USAGE =
  "Use:\n  - Duration: '30m', '2h', '1d' (one-shot)\n  - Interval: 'every 30m', 'every 2h' (recurring)\n  - Cron: '0 9 * * *' (cron expression)\n  - Timestamp: '2026-02-03T14:00:00' (one-shot at time)";

function invalid(message: string): GatewayError {
  return new GatewayError(ErrorCode.CRONJOB_SCHEDULE_INVALID, message);
}

/** parse_duration: minutes, or null when the text is not a duration. */
function parseDuration(text: string): number | null {
  const m = DURATION_RE.exec(text.trim().toLowerCase());
  if (!m) return null;
  if (m[1]!.length > 9) return Number.POSITIVE_INFINITY;
  const value = Number(m[1]);
  const unit = m[2]![0]!;
  return value * (unit === 'm' ? 1 : unit === 'h' ? 60 : 1440);
}

function checkedMinutes(minutes: number, original: string): number {
  if (minutes < 1) throw invalid(`Invalid schedule '${original}': the duration must be at least one minute.`);
  if (minutes > MAX_DURATION_MINUTES) throw invalid(`Invalid schedule '${original}': the duration is longer than ten years.`);
  return minutes;
}

// ---------------------------------------------------------------------------------------------
// Cron expressions

interface CompiledCron {
  pattern: string;
  mode: CronMode;
}

const CRON_OPTIONS = { sloppyRanges: true, domAndDow: false } as const;

/** True when a parsed croner field marks every value of its range (croniter then treats it as `*`). */
function covers(values: number[], from: number, to: number): boolean {
  for (let i = from; i <= to; i++) if (!values[i]) return false;
  return true;
}

/** Hermes' cron shape test plus croniter's field layout, translated to a croner pattern. */
function compileCron(expr: string): CompiledCron | null {
  const parts = expr.trim().split(/\s+/);
  if (parts.length < 5 || !parts.slice(0, 5).every((p) => CRON_FIELD_RE.test(p))) return null;
  if (parts.length > 7) throw invalid(`Invalid cron expression '${expr}': at most 7 fields (minute hour day month weekday [second] [year]).`);
  const [minute, hour, dom, month, dow, second, year] = parts as [string, string, string, string, string, string?, string?];
  const build = (d: string, w: string) => {
    const fields = [minute, hour, d, month, w];
    if (parts.length === 5) return { pattern: fields.join(' '), mode: '5-part' as CronMode };
    if (parts.length === 6) return { pattern: [second!, ...fields].join(' '), mode: '6-part' as CronMode };
    return { pattern: [second!, ...fields, year!].join(' '), mode: '7-part' as CronMode };
  };
  let compiled = build(dom, dow);
  let parsed: CronPattern;
  try {
    parsed = new CronPattern(compiled.pattern, undefined, { mode: compiled.mode, sloppyRanges: true });
  } catch (e) {
    throw invalid(`Invalid cron expression '${expr}': ${(e as Error).message}`);
  }
  const domStar = dom === '*' || covers(parsed.day, 0, 30);
  const dowStar = dow === '*' || covers(parsed.dayOfWeek, 0, 6);
  compiled = build(domStar ? '*' : dom, dowStar ? '*' : dow);
  try {
    // Evaluation only: without a callback croner schedules nothing.
    new Cron(compiled.pattern, { ...CRON_OPTIONS, mode: compiled.mode, timezone: 'UTC' });
  } catch (e) {
    throw invalid(`Invalid cron expression '${expr}': ${(e as Error).message}`);
  }
  return compiled;
}

/** The first run strictly after `afterMs`, in `tz`, as Hermes would store it; null when there is none. */
export function nextCronRun(expr: string, tz: string, afterMs: number): string | null {
  const compiled = compileCron(expr);
  if (!compiled) throw invalid(`Invalid cron expression '${expr}'.`);
  const next = new Cron(compiled.pattern, { ...CRON_OPTIONS, mode: compiled.mode, timezone: tz }).nextRun(new Date(afterMs));
  return next ? isoInZone(next.getTime(), tz) : null;
}

// ---------------------------------------------------------------------------------------------
// ISO timestamps (the subset of Python 3.11 `datetime.fromisoformat` a person or model writes)

const ISO_RE =
  /^(\d{4})(-?)(\d{2})\2(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?)?(?:([+-])(\d{2})(?::?(\d{2}))?)?$/;

interface ParsedIso {
  wall: Wall;
  /** Minutes east of UTC, or null for a naive time. */
  offset: number | null;
}

/**
 * Why Python's `datetime.fromisoformat` refuses `text` (its ValueError message, which Hermes'
 * parse_schedule puts after "Invalid timestamp '...':"), for a text parseIsoTimestamp refused.
 */
function isoRejection(text: string): string {
  const m = ISO_RE.exec(text);
  if (!m || (m[9] && m[5] === undefined)) return `Invalid isoformat string: ${pyRepr(text)}`;
  const [year, month, day, hour, minute, second] = [m[1], m[3], m[4], m[5], m[6], m[7]].map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  if (year < 1) return `year ${year} is out of range`;
  if (month < 1 || month > 12) return 'month must be in 1..12';
  if (day < 1 || day > daysInMonth(year, month)) return 'day is out of range for month';
  if (hour > 23) return 'hour must be in 0..23';
  if (minute > 59) return 'minute must be in 0..59';
  if (second > 59) return 'second must be in 0..59';
  return `Invalid isoformat string: ${pyRepr(text)}`;
}

/** Python's repr of a str without quotes or backslashes in it: the text in single quotes. */
function pyRepr(text: string): string {
  return text.includes("'") && !text.includes('"') ? `"${text}"` : `'${text.replaceAll("'", "\\'")}'`;
}

function parseIsoTimestamp(text: string): ParsedIso | null {
  const m = ISO_RE.exec(text);
  if (!m) return null;
  const [, y, , mo, d, h, mi, s, frac, sign, oh, om] = m;
  if (sign && h === undefined) return null; // an offset needs a time
  const wall: Wall = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
    micro: frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0,
  };
  if (wall.year < 1 || wall.month < 1 || wall.month > 12 || wall.day < 1 || wall.day > daysInMonth(wall.year, wall.month)) return null;
  if (wall.hour > 23 || wall.minute > 59 || wall.second > 59) return null;
  let offset: number | null = null;
  if (sign) {
    const hours = Number(oh);
    const minutes = Number(om ?? 0);
    if (hours > 23 || minutes > 59) return null;
    offset = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return { wall, offset };
}

// ---------------------------------------------------------------------------------------------

export interface ParseContext {
  /** The Hermes timezone (IANA name). */
  tz: string;
  now: number;
}

/** parse_schedule. Throws CRONJOB_SCHEDULE_INVALID with Hermes' guidance on anything else. */
export function parseSchedule(input: string, ctx: ParseContext): Schedule {
  const schedule = input.trim();
  const original = schedule;
  if (!schedule) throw invalid(`Invalid schedule: it is empty. ${USAGE}`);

  if (schedule.toLowerCase().startsWith('every ')) {
    const minutes = parseDuration(schedule.slice(6).trim());
    if (minutes === null) throw invalid(`Invalid duration: '${schedule.slice(6).trim().toLowerCase()}'. Use format like '30m', '2h', or '1d'`);
    const n = checkedMinutes(minutes, original);
    return { kind: 'interval', minutes: n, display: `every ${n}m` };
  }

  if (compileCron(schedule)) return { kind: 'cron', expr: schedule, display: schedule };

  if (schedule.includes('T') || /^\d{4}-\d{2}-\d{2}/.test(schedule)) {
    const parsed = parseIsoTimestamp(schedule.replaceAll('Z', '+00:00'));
    if (!parsed) throw invalid(`Invalid timestamp '${schedule}': ${isoRejection(schedule.replaceAll('Z', '+00:00'))}`);
    let ms: number;
    let offset: number;
    if (parsed.offset === null) {
      ({ ms, offset } = anchorWall(parsed.wall, ctx.tz));
    } else {
      offset = parsed.offset;
      const w = parsed.wall;
      const d = new Date(0);
      d.setUTCFullYear(w.year, w.month - 1, w.day);
      d.setUTCHours(w.hour, w.minute, w.second, Math.floor(w.micro / 1000));
      ms = d.getTime() - offset * 60_000;
    }
    const w = parsed.wall;
    if (ms < ctx.now - ONESHOT_GRACE_SECONDS * 1000) {
      // create_job's / update_job's refusal, naming the run_at parse_schedule made.
      throw invalid(`Requested one-shot time ${formatWall(w) + formatOffset(offset)} is more than ${ONESHOT_GRACE_SECONDS}s in the past and cannot be scheduled.`);
    }
    const pad = (n: number) => String(n).padStart(2, '0');
    return {
      kind: 'once',
      run_at: formatWall(w) + formatOffset(offset),
      display: `once at ${String(w.year).padStart(4, '0')}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}`,
    };
  }

  const minutes = parseDuration(schedule);
  if (minutes !== null) {
    const n = checkedMinutes(minutes, original);
    return { kind: 'once', run_at: isoInZone(ctx.now + n * 60_000, ctx.tz), display: `once in ${original}` };
  }

  throw invalid(`Invalid schedule '${original}'. ${USAGE}`);
}

function parseStoredInstant(text: unknown, tz: string): number | null {
  if (typeof text !== 'string') return null;
  const parsed = parseIsoTimestamp(text);
  if (!parsed) return null;
  if (parsed.offset === null) return anchorWall(parsed.wall, tz).ms;
  const w = parsed.wall;
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, Math.floor(w.micro / 1000));
  return d.getTime() - parsed.offset * 60_000;
}

/**
 * compute_next_run(schedule) with no last run (create, update, resume): a one-shot keeps its run_at
 * while it is within the grace window, an interval runs `minutes` from now, a cron expression at
 * its next match after now. A stored schedule the gateway cannot read is CRONJOB_SCHEDULE_INVALID.
 */
export function computeNextRun(schedule: unknown, ctx: ParseContext): string | null {
  const s = (schedule && typeof schedule === 'object' ? schedule : {}) as Record<string, unknown>;
  if (s.kind === 'once') {
    const at = parseStoredInstant(s.run_at, ctx.tz);
    return at !== null && at >= ctx.now - ONESHOT_GRACE_SECONDS * 1000 ? (s.run_at as string) : null;
  }
  if (s.kind === 'interval') {
    const minutes = s.minutes;
    if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) {
      throw invalid(`The job's stored interval schedule is not readable (minutes=${JSON.stringify(minutes)}).`);
    }
    return isoInZone(ctx.now + minutes * 60_000, ctx.tz);
  }
  if (s.kind === 'cron') {
    if (typeof s.expr !== 'string') throw invalid("The job's stored cron schedule has no expression.");
    return nextCronRun(s.expr, ctx.tz, ctx.now);
  }
  throw invalid(`The job's stored schedule kind ${JSON.stringify(s.kind)} is not one Hermes knows.`);
}
