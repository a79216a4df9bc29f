import { readHermesConfig } from '../../../platform/hermes-config.js';

// Hermes' clock (hermes_time.py) as the gateway needs it for cron/jobs.json: the configured IANA
// zone (HERMES_TIMEZONE, else config.yaml `timezone`, else the server's local zone; an invalid name
// falls back to local, as upstream does), timestamps rendered like Python's aware
// `datetime.isoformat()` (`2026-11-30T17:10:03.629017+00:00`, no fraction when it is zero), and a
// naive wall-clock time anchored in that zone the way `dt.replace(tzinfo=ZoneInfo(...))` does
// (fold=0: an ambiguous time takes its first occurrence, a time in a DST gap keeps the offset in
// force before the gap).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(tz, f);
  }
  return f;
}

function isValidTimezone(tz: string): boolean {
  try {
    formatterFor(tz);
    return true;
  } catch {
    return false;
  }
}

/** The server's local zone (honours TZ), what Python's `datetime.now().astimezone()` uses. */
function localTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * hermes_time._resolve_timezone_name plus its fallbacks: `configured` (HERMES_TIMEZONE), else
 * config.yaml `timezone`, else local. config.yaml is read on every call: cheap, and never stale.
 */
export function resolveHermesTimezone(hermesHome: string, configured: string | undefined): string {
  const fromEnv = (configured ?? '').trim();
  let name = fromEnv;
  if (!name) {
    // A missing or unreadable config.yaml means "no configured zone", as upstream.
    const tz = readHermesConfig(hermesHome).doc?.timezone;
    if (typeof tz === 'string' && tz.trim()) name = tz.trim();
  }
  return name && isValidTimezone(name) ? name : localTimezone();
}

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0-999999 */
  micro: number;
}

/** The wall-clock fields of an instant in `tz` (whole seconds; `micro` from the millisecond part). */
function wallAt(ms: number, tz: string): Wall {
  const parts = formatterFor(tz).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? NaN);
  let year = get('year');
  if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
  return {
    year,
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
    micro: (((ms % 1000) + 1000) % 1000) * 1000,
  };
}

function wallAsUtc(w: Wall): number {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime();
}

/** The zone's UTC offset at an instant, in minutes (east positive). */
function offsetMinutesAt(ms: number, tz: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return Math.round((wallAsUtc(wallAt(whole, tz)) - whole) / 60_000);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `${sign}${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
}

/** Python's `isoformat()` of a naive wall time (seconds always, microseconds only when non-zero). */
export function formatWall(w: Wall): string {
  const year = w.year < 0 ? `-${pad(w.year, 4)}` : pad(w.year, 4);
  const base = `${year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
  return w.micro ? `${base}.${pad(w.micro, 6)}` : base;
}

/** An instant rendered in `tz` like Python's aware `datetime.isoformat()`. */
export function isoInZone(ms: number, tz: string): string {
  return formatWall(wallAt(ms, tz)) + formatOffset(offsetMinutesAt(ms, tz));
}

/** `hermes_time.now().isoformat()` */
export function hermesNowIso(tz: string, now: number = Date.now()): string {
  return isoInZone(now, tz);
}

/**
 * Anchors a naive wall time in `tz` with Python's fold=0 rule. Returns the instant and the offset
 * Python would print for it (in a gap that is the offset in force before the gap, so the printed
 * wall time stays the one given).
 */
export function anchorWall(w: Wall, tz: string): { ms: number; offset: number } {
  const naive = wallAsUtc(w) + Math.floor(w.micro / 1000);
  const day = 86_400_000;
  const before = offsetMinutesAt(naive - day, tz);
  const after = offsetMinutesAt(naive + day, tz);
  const valid = [...new Set([before, after])]
    .map((offset) => ({ offset, ms: naive - offset * 60_000 }))
    .filter((c) => offsetMinutesAt(c.ms, tz) === c.offset)
    .sort((a, b) => a.ms - b.ms);
  if (valid.length > 0) return valid[0]!; // ambiguous: the first occurrence (fold=0)
  return { offset: before, ms: naive - before * 60_000 }; // in a gap
}

export function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}
