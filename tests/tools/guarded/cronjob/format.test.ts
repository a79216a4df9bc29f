import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import { applySkillFields, canonicalSkills, formatJob, normalizeJobRecord, pySlice, repeatDisplay, truthy } from '../../../../supervisor/tools/guarded/cronjob/format.js';

// Hermes' read-side job shapes as `list` shows them: the record normalized, the job view (as 0.19.0
// and as later Hermes show it), and the Python semantics they are built on.

const V019 = new HermesRelease('0.19.0');
const NEWEST = new HermesRelease(undefined);

describe('Python semantics', () => {
  test('truthy is Python truthiness of JSON values', () => {
    assert.deepEqual([null, undefined, false, 0, '', [], {}].map(truthy), [false, false, false, false, false, false, false]);
    assert.deepEqual([true, 1, -1, 'x', ' ', [0], { a: null }].map(truthy), [true, true, true, true, true, true, true]);
  });

  test('pySlice cuts by code points, never inside a surrogate pair', () => {
    assert.equal(pySlice('abc', 5), 'abc');
    assert.equal(pySlice('abcdef', 3), 'abc');
    assert.equal(pySlice('😀😀😀', 2), '😀😀');
    assert.equal(pySlice('😀😀😀', 2).length, 4);
  });

  test('canonicalSkills: skills over skill, a string or scalar taken as one, stripped, falsy and repeated ones dropped, non-strings as Python str()', () => {
    assert.deepEqual(canonicalSkills('solo', undefined), ['solo']);
    assert.deepEqual(canonicalSkills('', null), []);
    assert.deepEqual(canonicalSkills('ignored', ' one '), ['one']);
    assert.deepEqual(canonicalSkills(null, [' a ', 'b', 'a', '', null, 0, '  ']), ['a', 'b']);
    assert.deepEqual(canonicalSkills(null, [true, 3, false]), ['True', '3']);
    assert.deepEqual(canonicalSkills(null, 7), ['7']);
  });

  test('applySkillFields sets skills and skill (the first, or null) without changing the record given', () => {
    const job = { id: 'j', skill: 'x', skills: ['b', 'c'] };
    assert.deepEqual(applySkillFields(job), { id: 'j', skill: 'b', skills: ['b', 'c'] });
    assert.deepEqual(applySkillFields({ id: 'k' }), { id: 'k', skill: null, skills: [] });
    assert.deepEqual(job.skill, 'x');
  });
});

describe('normalizeJobRecord', () => {
  test('id and prompt as text, the name from prompt, skill, script or id, the schedule display from its first set field', () => {
    const n = normalizeJobRecord({ id: 42, prompt: null, script: ' run.sh ', schedule: { value: '', expr: ' 0 9 * * * ' } }, V019);
    assert.deepEqual([n.id, n.prompt, n.name, n.schedule_display, n.state], ['42', '', 'run.sh', '0 9 * * *', 'scheduled']);
    assert.equal(normalizeJobRecord({ id: null }, V019).name, 'unknown');
    assert.equal(normalizeJobRecord({ id: 'x', schedule: 'every 5m' }, V019).schedule_display, 'every 5m');
    assert.equal(normalizeJobRecord({ id: 'x', schedule: {} }, V019).schedule_display, '?');
    assert.equal(normalizeJobRecord({ id: 'x', schedule_display: ' shown ', schedule: 'raw' }, V019).schedule_display, 'shown');
    assert.equal(normalizeJobRecord({ id: 'x', prompt: ' ' + 'q'.repeat(60) }, V019).name, 'q'.repeat(49));
  });

  test("later Hermes' state follows enabled; completed and error stay", () => {
    const state = (job: Record<string, unknown>) => normalizeJobRecord({ id: 's', ...job }, NEWEST).state;
    assert.equal(state({ enabled: false }), 'paused');
    assert.equal(state({ enabled: false, state: 'scheduled' }), 'scheduled');
    assert.equal(state({ enabled: false, state: 'scheduled', paused_at: 't' }), 'paused');
    assert.equal(state({ enabled: true, paused_at: 't' }), 'scheduled');
    assert.equal(state({ state: 'error', enabled: false }), 'error');
    assert.equal(state({}), 'scheduled');
    assert.equal(normalizeJobRecord({ id: 's', state: '  ', enabled: false }, V019).state, 'paused');
  });
});

describe('jobs.json and the job view', () => {
  test("formatted jobs follow Hermes' _format_job and _repeat_display, as 0.19.0 has them", () => {
    const stored = { id: 'a1b2c3', name: 'Otters', prompt: 'Count the otters', schedule: { kind: 'interval', minutes: 30, display: 'every 30m' }, repeat: { times: null, completed: 0 }, enabled: true, state: 'scheduled', deliver: 'local' };
    const formatted = formatJob(normalizeJobRecord(stored, V019), V019);
    assert.deepEqual([formatted.job_id, formatted.name, formatted.schedule, formatted.prompt_preview], ['a1b2c3', 'Otters', 'every 30m', 'Count the otters']);
    assert.equal(formatted.repeat, 'forever');
    assert.equal('pinned' in formatted, false);
    assert.equal(repeatDisplay({ repeat: { times: 1, completed: 0 } }), 'once');
    assert.equal(repeatDisplay({ repeat: { times: 1, completed: 1 } }), '1/1');
    assert.equal(repeatDisplay({ repeat: { times: 5, completed: 0 } }), '5 times');
    assert.equal(repeatDisplay({ repeat: { times: 5, completed: 2 } }), '2/5');
    const long = formatJob({ id: 'x', prompt: 'p'.repeat(120), script: 'watch.sh', no_agent: true, enabled_toolsets: ['web'], workdir: '/w' }, V019);
    assert.equal(long.prompt_preview, 'p'.repeat(100) + '...');
    assert.equal(long.name, 'p'.repeat(50));
    assert.deepEqual([long.script, long.no_agent, long.enabled_toolsets, long.workdir, long.deliver, long.state], ['watch.sh', true, ['web'], '/w', 'local', 'scheduled']);
    const legacy = normalizeJobRecord({ id: 'y', name: null, prompt: null, skill: 'one', schedule: { kind: 'cron', expr: '0 1 * * *' }, enabled: false }, V019);
    assert.deepEqual([legacy.name, legacy.prompt, legacy.skills, legacy.schedule_display, legacy.state], ['one', '', ['one'], '0 1 * * *', 'paused']);
    // 0.19.0 shows the stored state as it is, even on an enabled record.
    assert.equal(formatJob({ id: 'z', enabled: true, state: 'paused', paused_at: null }, V019).state, 'paused');
  });

  test("later Hermes' job view: pinned, the delivery and fire fields, the state derived from enabled, continuity and context_from", () => {
    const view = formatJob(
      {
        id: 'abc', prompt: 'p', model: ' gpt ', enabled: true, state: 'paused', paused_at: '2026-01-01T00:00:00+00:00', last_error: 'boom', last_fire_error: 'x',
        context_from: ['self', 'other'], attach_to_session: false, monitor_url: 'https://example.invalid/', interpreter: '/usr/bin/python3',
      },
      NEWEST,
    );
    assert.deepEqual(Object.keys(view), [
      'job_id', 'name', 'skill', 'skills', 'prompt_preview', 'model', 'provider', 'pinned', 'base_url', 'schedule', 'repeat', 'deliver', 'next_run_at', 'last_run_at', 'last_status',
      'last_delivery_error', 'last_delivery_unverified', 'last_fire_error', 'last_error', 'enabled', 'state', 'paused_at', 'paused_reason', 'monitor_url', 'interpreter', 'continuity',
      'context_from', 'attach_to_session',
    ]);
    assert.deepEqual([view.pinned, view.state, view.continuity, view.context_from, view.attach_to_session], [true, 'scheduled', true, ['other'], false]);
    assert.equal(formatJob({ id: 'u', model: '  ' }, NEWEST).pinned, false);
    assert.equal(formatJob({ id: 'h', enabled: false, paused_at: 'x' }, NEWEST).state, 'paused');
    assert.equal(formatJob({ id: 'c', enabled: false, state: 'completed' }, NEWEST).state, 'completed');
    assert.equal(normalizeJobRecord({ id: 'n', enabled: true, state: 'paused' }, NEWEST).state, 'scheduled');
  });
});
