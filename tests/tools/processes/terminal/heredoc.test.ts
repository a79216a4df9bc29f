import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stripInertHeredocBodies } from '../../../../supervisor/tools/processes/terminal/heredoc.js';

// Hermes' heredoc masking re-expressed (tools/shell_heredoc.py strip_inert_heredoc_bodies, Hermes
// 0.22.2): a body is blanked only when it is provably data for a non-shell interpreter.

test('heredoc bodies are masked only when provably inert', () => {
  const py = "python3 - <<'EOF'\nx = 1 & 3\nprint(x)\nEOF";
  assert.equal(stripInertHeredocBodies(py), "python3 - <<'EOF'\n\n\n");
  for (const kept of [
    "bash <<'EOF'\nsleep 1 &\nEOF", // a shell runs the body
    'cat <<EOF\na & b\nEOF', // an unquoted delimiter: the body expands
    "cat <<'EOF' | sh\nsleep 1 &\nEOF", // a list operator after the heredoc
    "python3 - <<'EOF'\nnever terminated &", // no terminator line
    "echo $(cat <<'E'\nx & y\nE\n)", // inside a substitution
  ]) {
    assert.equal(stripInertHeredocBodies(kept), kept, kept);
  }
  assert.equal(stripInertHeredocBodies("FOO=1 env /usr/bin/python3.11 - <<-'X'\n\tprint(1 & 2)\n\tX"), "FOO=1 env /usr/bin/python3.11 - <<-'X'\n\n");
});

test('a command without a heredoc, or with an opener on its last line, is returned as it is', () => {
  for (const c of ['echo a & b', "python3 - <<'EOF'", 'cat <<<"here string"', '']) assert.equal(stripInertHeredocBodies(c), c, c);
});

test('two quoted heredocs of one command are both blanked; a second command after the terminator is kept', () => {
  const two = "cat <<'A' <<'B'\na & b\nA\nc & d\nB\necho done &";
  assert.equal(stripInertHeredocBodies(two), "cat <<'A' <<'B'\n\n\n\n\necho done &");
});
