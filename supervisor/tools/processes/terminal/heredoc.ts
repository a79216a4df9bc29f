// Hermes' conservative heredoc masking for the foreground guidance (tools/shell_heredoc.py
// strip_inert_heredoc_bodies, used by tools/terminal_tool_guards.py _strip_quotes since Hermes
// 0.22.2), re-expressed: the body of a heredoc is blanked (its newlines kept) only when it is
// provably data for a non-shell interpreter: every delimiter of the command is quoted, every
// heredoc has its exact terminator line, the command that owns it is python/python3/osascript/cat
// (optionally after VAR=... assignments, `env` and a path), its opener has no substitution,
// grouping or subshell, and no list operator follows the heredoc. Anything else is returned as it
// is: a false refusal is acceptable, hiding shell syntax from the guidance is not.

const INERT_HEREDOC_CONSUMER_RE = /^\s*(?:[A-Z_][A-Z0-9_]*=\S+\s+)*(?:env\s+)?(?:[A-Za-z0-9_./-]+\/)?(?:python(?:3(?:\.\d+)*)?|osascript|cat)(?=\s|$)/i;

/** Python's str.isspace() for one character. */
function isSpace(ch: string): boolean {
  return /^[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/.test(ch);
}

/** Index just past the backslash-aware span opened at `cursor`. */
function spanEnd(command: string, cursor: number, closer: string): number {
  let end = cursor + 1;
  while (end < command.length) {
    if (command[end] === closer) return end + 1;
    end += command[end] === '\\' && end + 1 < command.length ? 2 : 1;
  }
  return end;
}

/** Inert quoted spans blanked; double-quoted ones holding `$(` or a backtick kept visible. */
function maskSimpleQuotes(command: string): string {
  const result: string[] = [];
  let cursor = 0;
  while (cursor < command.length) {
    const ch = command[cursor]!;
    if (ch === "'" || ch === '"') {
      const end = ch === "'" ? command.indexOf("'", cursor + 1) + 1 : spanEnd(command, cursor, '"');
      // An unterminated single quote: indexOf gives -1, so `end` is 0 (Python's find + 1).
      const segment = command.slice(cursor, end > cursor ? end : cursor);
      if (end <= cursor || !segment.endsWith(ch)) {
        result.push(command.slice(cursor));
        break;
      }
      const keep = ch === '"' && (segment.includes('$(') || segment.includes('`'));
      result.push(keep ? segment : ch + ch);
      cursor = end;
    } else if (ch === '`') {
      const end = spanEnd(command, cursor, '`');
      result.push(command.slice(cursor, end));
      cursor = end;
    } else {
      result.push(ch);
      cursor += 1;
    }
  }
  return result.join('');
}

interface HeredocSpec {
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
}

/** One `<<` opener at `index`: where it ends and its delimiter, or undefined. */
function parseHeredocOperator(command: string, index: number): { end: number; spec: HeredocSpec } | undefined {
  if (!command.startsWith('<<', index) || command.startsWith('<<<', index)) return undefined;
  const stripTabs = command.startsWith('-', index + 2);
  let cursor = stripTabs ? index + 3 : index + 2;
  while (cursor < command.length && (command[cursor] === ' ' || command[cursor] === '\t')) cursor += 1;
  if (cursor >= command.length || command[cursor] === '\r' || command[cursor] === '\n') return undefined;
  const delimiter: string[] = [];
  let quoted = false;
  while (cursor < command.length && !(isSpace(command[cursor]!) || ';&|<>()'.includes(command[cursor]!))) {
    const ch = command[cursor]!;
    if (ch === '\\') {
      if (cursor + 1 >= command.length || command[cursor + 1] === '\r' || command[cursor + 1] === '\n') return undefined;
      quoted = true;
      delimiter.push(command[cursor + 1]!);
      cursor += 2;
    } else if (ch === "'" || ch === '"') {
      quoted = true;
      cursor += 1;
      while (cursor < command.length && command[cursor] !== ch) {
        let current = command[cursor]!;
        if (current === '\r' || current === '\n') return undefined;
        if (ch === '"' && current === '\\') {
          if (cursor + 1 >= command.length) return undefined;
          if ('$`"\\\n'.includes(command[cursor + 1]!)) {
            cursor += 1;
            current = command[cursor]!;
          }
        }
        delimiter.push(current);
        cursor += 1;
      }
      if (cursor >= command.length) return undefined;
      cursor += 1;
    } else {
      delimiter.push(ch);
      cursor += 1;
    }
  }
  if (delimiter.length === 0 && !quoted) return undefined;
  return { end: cursor, spec: { delimiter: delimiter.join(''), stripTabs, quoted } };
}

/** Whether the `&` at `index` belongs to a `>&`, `<&` or `&>` redirection. */
function isFdRedirectAmpersand(command: string, index: number): boolean {
  const before = index > 0 ? command[index - 1]! : '';
  const after = index + 1 < command.length ? command[index + 1]! : '';
  return (before !== '' && '<>'.includes(before)) || after === '>';
}

interface CommandUnit {
  end: number;
  specs: HeredocSpec[];
  unknownOperator: boolean;
  postHeredocListOperator: boolean;
  ownerStart: number;
}

/** One logical command (to its unquoted newline): its heredocs and what surrounds them. */
function scanCommandUnit(command: string, start: number): CommandUnit {
  let cursor = start;
  let quote: string | undefined;
  let comment = false;
  const specs: HeredocSpec[] = [];
  let unknownOperator = false;
  let postHeredocListOperator = false;
  let ownerStart = start;
  while (cursor < command.length) {
    const ch = command[cursor]!;
    if (ch === '\n' && (comment || quote === undefined)) break;
    const escaped = ch === '\\' && quote !== "'" && !comment && cursor + 1 < command.length;
    if (comment || quote !== undefined || escaped) {
      if (ch === quote) quote = undefined;
      cursor += escaped ? 2 : 1;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
      cursor += 1;
    } else if (ch === '#' && (cursor === start || isSpace(command[cursor - 1]!) || ';&|()'.includes(command[cursor - 1]!))) {
      comment = true;
      cursor += 1;
    } else if (command.startsWith('<<<', cursor)) {
      cursor += 3;
    } else if (command.startsWith('<<', cursor)) {
      const parsed = parseHeredocOperator(command, cursor);
      if (parsed === undefined) {
        unknownOperator = true;
        cursor += 2;
      } else {
        cursor = parsed.end;
        specs.push(parsed.spec);
      }
    } else {
      if (';|&'.includes(ch) && !(ch === '&' && isFdRedirectAmpersand(command, cursor))) {
        if (specs.length > 0) postHeredocListOperator = true;
        else ownerStart = cursor + 1;
      }
      cursor += 1;
    }
  }
  return { end: cursor, specs, unknownOperator, postHeredocListOperator, ownerStart };
}

/** Where the line after an exact terminator line starts, or undefined when there is none. */
function findHeredocClose(command: string, bodyStart: number, delimiter: string, stripTabs: boolean): number | undefined {
  let cursor = bodyStart;
  for (;;) {
    const newline = command.indexOf('\n', cursor);
    const after = newline === -1 ? command.length : newline + 1;
    let line = command.slice(cursor, after);
    if (line.endsWith('\n')) line = line.slice(0, -1);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const candidate = stripTabs ? line.replace(/^\t+/, '') : line;
    if (candidate === delimiter) return after;
    if (newline === -1) return undefined;
    cursor = after;
  }
}

const countNewlines = (s: string) => s.split('\n').length - 1;

/** The command with its provably inert heredoc bodies reduced to their newlines. */
export function stripInertHeredocBodies(command: string): string {
  if (!command.includes('<<')) return command;
  const lastOpener = command.lastIndexOf('<<');
  const ranges: Array<[number, number]> = [];
  let commandStart = 0;
  while (commandStart <= lastOpener) {
    const unit = scanCommandUnit(command, commandStart);
    if (unit.unknownOperator) return command;
    if (unit.specs.length === 0) {
      if (unit.end >= command.length) break;
      commandStart = unit.end + 1;
      continue;
    }
    if (unit.end >= command.length) return command; // an opener with no body line
    let bodyCursor = unit.end + 1;
    const bodies: Array<[number, number]> = [];
    for (const spec of unit.specs) {
      const closeEnd = findHeredocClose(command, bodyCursor, spec.delimiter, spec.stripTabs);
      if (closeEnd === undefined) return command; // unterminated
      bodies.push([bodyCursor, closeEnd]);
      bodyCursor = closeEnd;
    }
    if (unit.specs.every((s) => s.quoted) && !unit.postHeredocListOperator) {
      const maskedOpener = maskSimpleQuotes(command.slice(commandStart, unit.end));
      const maskedOwner = maskSimpleQuotes(command.slice(unit.ownerStart, unit.end));
      if (!['$(', '`', '<(', '>(', '(', ')', '{', '}'].some((m) => maskedOpener.includes(m)) && INERT_HEREDOC_CONSUMER_RE.test(maskedOwner)) ranges.push(...bodies);
    }
    commandStart = bodyCursor;
  }
  const parts: string[] = [];
  let previous = 0;
  for (const [start, end] of ranges) {
    parts.push(command.slice(previous, start), '\n'.repeat(countNewlines(command.slice(start, end))));
    previous = end;
  }
  return parts.join('') + command.slice(previous);
}
