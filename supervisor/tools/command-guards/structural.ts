import { basename, spend, type Budget, type SegmentWords } from './command-words.js';
import { deobfuscateWord } from './normalise.js';
import { splitOption, tokensWithSpans } from './shell-tokens.js';

// Two of Hermes' structural readings of a command beside its patterns and execution findings: the
// variant of the command the patterns read with quoted `grep -P` patterns blanked, and the check
// for a spliced stop or restart of the Hermes gateway.

// ---------------------------------------------------------------------------------------------
// The grep-safe variant
// ---------------------------------------------------------------------------------------------

// Hermes' _grep_safe_detection_variant and _quoted_grep_pattern_spans (tools/approval.py): a
// quoted `grep -P` pattern is a regular expression, data rather than a command, so it is blanked
// before the patterns read the command (`grep -P 'rm -rf /'` is not a dangerous rm).

const GREP_OPTIONS_WITH_ARG = new Set(['--after-context', '--before-context', '--binary-files', '--context', '--directories', '--devices', '--exclude', '--exclude-dir', '--exclude-from', '--include', '--label', '--max-count', '--regexp', '--file']);
const GREP_SHORT_WITH_ARG = new Set('ABCDdefm');

/**
 * Hermes' _grep_safe_detection_variant: the command with each quoted `grep -P` pattern blanked
 * (a regex is data, not a command), or 'malformed' when a grep's arguments cannot be read.
 */
export function grepSafeVariant(c: string, words: SegmentWords[], budget: Budget): string | 'malformed' {
  const spans: Array<[number, number]> = [];
  for (const { at, segment, spans: commandWords } of words) {
    for (const [start, , word] of commandWords) {
      const name = basename(deobfuscateWord(word)).toLowerCase();
      if (name !== 'grep' && name !== 'egrep') continue;
      spend(budget, segment.length - start);
      const tokens = tokensWithSpans(segment, start);
      if (tokens === null) return 'malformed';
      const args = tokens.slice(1);
      let pcre = false;
      let explicit = false;
      const patterns: number[] = [];
      let operand: number | null = null;
      let options = true;
      for (let i = 0; i < args.length; i++) {
        const token = args[i]!.value;
        if (options && token === '--') {
          options = false;
          continue;
        }
        if (options && token.startsWith('--')) {
          const [option, value] = splitOption(token);
          if (option === '--perl-regexp') pcre = true;
          if (option === '--regexp' || option === '--file') explicit = true;
          if (GREP_OPTIONS_WITH_ARG.has(option) && value === null) {
            if (i + 1 >= args.length) return 'malformed';
            if (option === '--regexp') patterns.push(i + 1);
            i++;
            continue;
          }
          if (option === '--regexp' && value !== null) patterns.push(i);
          continue;
        }
        if (options && token.startsWith('-') && token !== '-') {
          const chars = token.slice(1);
          for (let j = 0; j < chars.length; j++) {
            const ch = chars[j]!;
            if (ch === 'P') pcre = true;
            if (ch === 'e' || ch === 'f') explicit = true;
            if (GREP_SHORT_WITH_ARG.has(ch)) {
              if (j + 1 < chars.length) {
                if (ch === 'e') patterns.push(i);
              } else {
                if (i + 1 >= args.length) return 'malformed';
                if (ch === 'e') patterns.push(i + 1);
                i++;
              }
              break;
            }
          }
          continue;
        }
        operand ??= i;
      }
      if (!explicit) {
        // Hermes stops reading the command at the first grep without a pattern operand.
        if (operand === null) return pcre ? 'malformed' : c;
        patterns.push(operand);
      }
      if (pcre) for (const index of patterns) if (args[index]!.inert) spans.push([at + args[index]!.start, at + args[index]!.end]);
    }
  }
  return blank(c, spans);
}

function blank(c: string, spans: Array<[number, number]>): string {
  let out = '';
  let done = 0;
  for (const [from, to] of spans) {
    out += c.slice(done, from) + ' '.repeat(to - from);
    done = to;
  }
  return out + c.slice(done);
}

// ---------------------------------------------------------------------------------------------
// The spliced gateway-lifecycle check
// ---------------------------------------------------------------------------------------------

// Hermes' last dangerous check, after its patterns and execution findings (after 0.19:
// tools/approval_detection.py _is_shell_token_spliced_gateway_lifecycle, which asks
// cron/lifecycle_guard.py contains_gateway_lifecycle_command): a command that stops, restarts or
// kills the Hermes gateway however its words are spliced (`launchctl kick"start" … ai.hermes.gateway`),
// or kills the Python interpreter hosting it (`pkill python3`, `taskkill /IM python.exe`). The
// gateway reads it as Hermes does, with two simplifications that only ever flag more: shell
// comments and inert heredoc bodies are read like any other text, and a killer's arguments are
// all read as possible targets (option values included).

/** Hermes' description of this check's finding. */
export const LIFECYCLE_SPLICE_KEY = 'stop/restart hermes gateway via shell-spliced verb (kills running agents)';

// Hermes' _GATEWAY_LIFECYCLE_PATTERN branches A-D, read per line (each of Hermes' branches stays
// within a line) and written to take the first verb of a line, so a long line is read once.
const LIFECYCLE = [
  /(?<![/\w.-])hermes(?:\.(?:exe|cmd|bat|com|ps1))?\s+gateway\s+(?:restart|stop|uninstall)\b/i,
  /(?<![^\n])(?=([^\n]*?launchctl\s+(?:kickstart|unload|load|stop|restart|submit|bootstrap|bootout|remove|disable)\b))\1[^\n]*\bhermes[.-]?gateway/i,
  /(?<![^\n])(?=([^\n]*?systemctl\s+(?:-\S+\s+)*(?:restart|stop|start)\b))\1[^\n]*\bhermes[.-]?gateway/i,
  /(?<![^\n])(?=([^\n]*?\b(?:p?kill|taskkill|stop-process)\b))\1(?=([^\n]*?\bhermes\b))\2[^\n]*\bgateway/i,
  /(?<![^\n])(?=([^\n]*?\b(?:p?kill|taskkill|stop-process)\b))\1(?=([^\n]*?\bgateway\b))\2[^\n]*\bhermes/i,
];
const LAUNCHCTL_VERB = /\blaunchctl\s+(?:kickstart|unload|load|stop|restart|bootout|kill|disable|remove)\b/i;
const GATEWAY_LABEL = /\bhermes[.-]?gateway\b/i;
const KILL_VERB = /\b(?:kill|taskkill|stop-process)\b/i;
const KILLERS = new Set(['pkill', 'killall', 'taskkill', 'stop-process']);
const ENUMERATORS = new Set(['pgrep', 'pidof', 'get-process']);

const matchesLifecycle = (text: string) => LIFECYCLE.some((re) => re.test(text));

/**
 * The command's words per simple command, quotes and escapes resolved as the shell resolves them
 * (Hermes' _iter_command_segments): split at unquoted ; & | ( ) and newlines. Unbalanced quoting
 * reads the rest as plain words.
 */
function segments(text: string, budget: Budget): string[][] {
  spend(budget, text.length);
  const out: string[][] = [];
  let words: string[] = [];
  let word = '';
  let started = false;
  let quote = '';
  const endWord = () => {
    if (started) words.push(word);
    word = '';
    started = false;
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) out.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = '';
      else if (ch === '\\' && quote === '"' && (text[i + 1] === '"' || text[i + 1] === '\\' || text[i + 1] === '$' || text[i + 1] === '`')) word += text[++i];
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === '\\' && i + 1 < text.length) {
      if (text[i + 1] !== '\n') word += text[i + 1];
      started = true;
      i++;
    } else if (';&|()\n'.includes(ch)) endSegment();
    else if (/\s/.test(ch)) endWord();
    else {
      word += ch;
      started = true;
    }
  }
  endSegment();
  return out;
}

const executableName = (token: string) => {
  const base = token.slice(token.lastIndexOf('/') + 1) || token;
  return base.toLowerCase().replace(/\.exe$/, '');
};

/** Whether a process-name argument could select the Python interpreter (Hermes' _is_interpreter_image, read at its widest). */
function namesInterpreter(token: string): boolean {
  let value = token.toLowerCase();
  // -Name:python, /IM:python.exe, imagename eq python.exe
  const inline = /^[-/][a-z]+[:=](.*)$/.exec(value);
  if (inline) value = inline[1]!;
  const filter = /imagename\s+eq\s+(\S+)/.exec(value);
  if (filter) value = filter[1]!;
  for (const part of value.split(',')) {
    const name = part.trim().replace(/^["']+|["']+$/g, '').replace(/^\^/, '');
    if (name === '' || name.startsWith('-')) continue;
    // A whole command line (`pkill -f 'python app.py'`) reaches the gateway only with nothing but
    // wildcards after the interpreter, or a word of Hermes.
    const space = name.search(/\s/);
    if (space > 0) {
      const rest = name.slice(space);
      if (namesInterpreter(name.slice(0, space)) && (/^[.*+?$\s]*$/.test(rest) || rest.includes('hermes'))) return true;
      if (/hermes_cli|\bhermes\b.*\bgateway\b|\bgateway\b.*\bhermes\b/.test(name)) return true;
      continue;
    }
    if (name.startsWith('py')) return true;
    const prefix = name.replace(/[*.?$]+$/, '');
    if (name.endsWith('*') && 'python'.startsWith(prefix)) return true;
    // A -f pattern that reaches the gateway's own command line.
    if (/hermes_cli|\bhermes\b.*\bgateway\b|\bgateway\b.*\bhermes\b/.test(name)) return true;
  }
  return false;
}

/** A killer (or, with a kill verb in the command, an enumerator) in `words` aimed at the interpreter (Hermes' contains_host_interpreter_kill). */
function killsInterpreter(words: string[], killVerb: boolean): boolean {
  let killer = false;
  for (const word of words) {
    if (killer && namesInterpreter(word)) return true;
    const name = executableName(word);
    if (KILLERS.has(name) || (killVerb && ENUMERATORS.has(name))) killer = true;
  }
  return false;
}

/** Whether `command` (as written) stops or kills the Hermes gateway in a way Hermes' lifecycle guard reads. */
export function splicesGatewayLifecycle(command: string, budget: Budget): boolean {
  const text = command.replace(/\\\r?\n[ \t]*/g, ' ');
  if (matchesLifecycle(text)) return true;
  const killVerb = KILL_VERB.test(text);
  // The words read as the shell reads them differ from the text only through quotes, escapes and
  // argv-list punctuation; without those (and without a process killer) there is nothing more to find.
  if (/["'\\[\],]/.test(text) || KILLER_WORD.test(text)) {
    if (wordsSplice(text, killVerb, budget)) return true;
  }
  return LAUNCHCTL_VERB.test(text) && GATEWAY_LABEL.test(text);
}

const KILLER_WORD = /\b(?:pkill|killall|taskkill|stop-process|pgrep|pidof|get-process)\b/i;

function wordsSplice(text: string, killVerb: boolean, budget: Budget): boolean {
  for (const words of segments(text, budget)) {
    const joined = words.join(' ');
    if (matchesLifecycle(joined)) return true;
    const stripped = joined.replace(/[[\],]+/g, ' ');
    if (stripped !== joined && matchesLifecycle(stripped)) return true;
    if (killsInterpreter(words, killVerb)) return true;
    if (stripped !== joined && killsInterpreter(stripped.split(/\s+/).filter(Boolean), killVerb)) return true;
  }
  return false;
}
