import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { imageParts, messageText, startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { hermesEnv, runDriver } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';

// The scripted model server speaks the wire format the OpenAI client in Hermes' venv reads: streamed
// text and tool-call deltas with a usage chunk, a plain completion, the model list; and it records
// what it was sent (including image parts).

const temp = tempDirs();
let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({
    models: ['scripted-model', 'other'],
    turns: [
      { when: (r) => messageText((r.body?.messages as Array<{ content: unknown }>)[0]?.content) === 'look', text: 'a picture of nothing' },
      { text: 'writing it now, as asked', toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }] },
    ],
  });
});
after(async () => {
  await model.close();
  temp.removeAll();
});

test("OpenAI's Python client reads the scripted turns, and the server records each request", async () => {
  const out = await runDriver<{
    models: string[];
    stream: { text: string; tool_calls: Array<{ id: string; name: string; arguments: string }>; finish: string; usage: number };
    plain: { text: string; finish: string };
  }>('bridge_openai_client.py', { base_url: model.baseUrl }, hermesEnv(temp.make('scripted-model-')));
  assert.deepEqual(out.models, ['scripted-model', 'other']);
  assert.equal(out.stream.text, 'writing it now, as asked');
  assert.equal(out.stream.tool_calls.length, 1);
  assert.equal(out.stream.tool_calls[0]!.name, 'write_file');
  assert.deepEqual(JSON.parse(out.stream.tool_calls[0]!.arguments), { path: 'a.txt', content: 'x' });
  assert.match(out.stream.tool_calls[0]!.id, /^call_/);
  assert.equal(out.stream.finish, 'tool_calls');
  assert.equal(out.stream.usage, 15);
  // The `when` turn waited for the request it accepts, though it came first in the script.
  assert.deepEqual(out.plain, { text: 'a picture of nothing', finish: 'stop' });
  assert.equal(model.pending(), 0);
  assert.equal(model.unscripted.length, 0);
  const chats = model.chatRequests();
  assert.equal(chats.length, 2);
  assert.equal(chats[0]!.body?.stream, true);
  assert.equal(chats[0]!.headers.authorization, 'Bearer sk-scripted-test');
  assert.deepEqual(imageParts(chats[1]!), ['data:image/png;base64,AAAA']);
});

test('a request no turn accepts gets the fallback and is counted; an error turn answers its status', async () => {
  model.push({ status: 429, error: { error: { message: 'slow down', type: 'rate_limit_error' } } });
  const ask = () => fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
  const limited = await ask();
  assert.equal(limited.status, 429);
  assert.equal(((await limited.json()) as { error: { message: string } }).error.message, 'slow down');
  const fallback = (await (await ask()).json()) as { choices: Array<{ message: { content: string } }> };
  assert.equal(fallback.choices[0]!.message.content, 'OK');
  assert.equal(model.unscripted.length, 1);
  assert.equal((await fetch(`${model.url}/elsewhere`)).status, 404);
  assert.equal(model.requests.at(-1)!.path, '/elsewhere');
});
