import { basename, segmentWords, spend, type Budget } from './command-words.js';
import { collapseUnquotedWhitespace, deobfuscateWord, hermesNormalise, simpleCommandEnd, type CommandHomes } from './normalise.js';
import { executionFindings } from './execution-findings.js';
import { pythonStrip } from '../../../shared/python-strip.js';
import { shellTokens } from './shell-tokens.js';

// ---------------------------------------------------------------------------------------------
// The operator's deny rules: what a glob is matched against
// ---------------------------------------------------------------------------------------------

/** What reading one more program text for the deny rules costs, per character, from the same budget. */
const DENY_SOURCE_COST = 8;

/** shlex.quote: a word as the shell would need it written. */
const shellQuote = (w: string) => (w === '' ? "''" : /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'"'"'`)}'`);

/** The payload of `env -S STRING` / `--split-string=STRING` with the words after it (Hermes' _env_split_payload), or null. */
function envSplitPayload(tokens: string[]): string | null {
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '--' || !token.startsWith('-')) return null;
    const eq = token.indexOf('=');
    const option = eq < 0 ? token : token.slice(0, eq);
    if (option === '--split-string' || token.startsWith('-S')) {
      const attached = option === '--split-string' ? eq >= 0 : token.length > 2;
      let payload: string;
      if (attached) payload = option === '--split-string' ? token.slice(eq + 1) : token.slice(2);
      else payload = tokens[++i] ?? '';
      const args = shellTokens(payload) ?? payload.split(/\s+/).filter(Boolean);
      return [...args, ...tokens.slice(i + 1)].map(shellQuote).join(' ');
    }
    if (eq < 0 && ['-a', '--argv0', '-C', '--chdir', '-u', '--unset'].includes(option)) i++;
  }
  return null;
}

/**
 * Every text a deny glob is matched against, as the union of what each supported Hermes matches:
 * the command's readings (0.19: its detection variants, whole), and (later Hermes,
 * _deny_command_variants) each command-position word with the rest of its simple command, the word
 * deobfuscated and as its basename, so `git push*` also matches `ls && git push`, `sudo git push`,
 * `/usr/bin/git push`, `env -S 'git push'` and `bash -c 'git push'`. Lowercased and stripped (Hermes
 * matches `candidate.lower().strip()` against `glob.lower()`).
 */
export function denyCandidates(command: string, base: string, grep: string, payloads: string[], readings: readonly string[], ctx: CommandHomes, budget: Budget): string[] {
  const out = new Set<string>();
  const put = (text: string) => {
    spend(budget, text.length);
    out.add(pythonStrip(text.toLowerCase()));
  };
  for (const text of [base, grep, ...payloads]) put(text);
  for (const reading of readings) put(reading);
  const pending = [command, base];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const source = pending.shift()!;
    if (seen.has(source)) continue;
    seen.add(source);
    // Each program text read again is paid for in full, so payloads nested in payloads
    // (`env -S 'env -S …'`) end at the parser limit instead of taking quadratic time.
    spend(budget, DENY_SOURCE_COST * source.length);
    const words = segmentWords(source, budget);
    for (const { segment, spans } of words) {
      for (const [start, end, raw] of spans) {
        spend(budget, segment.length - end);
        const executable = deobfuscateWord(raw).replace(/\\(.)/g, '$1');
        const tail = collapseUnquotedWhitespace(segment.slice(end, simpleCommandEnd(segment, end)).replace(/\s+$/, ''));
        for (const name of new Set([executable, basename(executable)])) {
          put(name + tail);
          put(hermesNormalise(name + tail, ctx));
        }
        if (basename(executable) === 'env') {
          const tokens = shellTokens(segment.slice(start, simpleCommandEnd(segment, start)));
          const payload = tokens ? envSplitPayload(tokens) : null;
          if (payload) pending.push(payload);
        }
      }
    }
    for (const finding of executionFindings(words, budget)) if (finding.payload) pending.push(finding.payload);
  }
  return [...out];
}
