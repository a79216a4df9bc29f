"""Drives the OpenAI Python client Hermes ships with (its model transport) against a scripted model
server: one streamed and one plain chat completion, and the model list. JSON in: {base_url}.
Last stdout line: what the client made of each answer."""
import json
import sys

from openai import OpenAI

args = json.load(sys.stdin)
client = OpenAI(base_url=args["base_url"], api_key="sk-scripted-test", max_retries=0)
out = {"models": [m.id for m in client.models.list().data]}

stream = client.chat.completions.create(
    model="scripted-model",
    messages=[{"role": "user", "content": "first"}],
    tools=[{"type": "function", "function": {"name": "write_file", "parameters": {"type": "object"}}}],
    stream=True,
    stream_options={"include_usage": True},
)
text, calls, finish, usage = "", {}, None, None
for chunk in stream:
    if chunk.usage:
        usage = chunk.usage.total_tokens
    for choice in chunk.choices:
        d = choice.delta
        text += d.content or ""
        for tc in d.tool_calls or []:
            c = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
            c["id"] = tc.id or c["id"]
            if tc.function and tc.function.name:
                c["name"] += tc.function.name
            if tc.function and tc.function.arguments:
                c["arguments"] += tc.function.arguments
        finish = choice.finish_reason or finish
out["stream"] = {"text": text, "tool_calls": [calls[i] for i in sorted(calls)], "finish": finish, "usage": usage}

plain = client.chat.completions.create(model="scripted-model", messages=[{"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}])
out["plain"] = {"text": plain.choices[0].message.content, "finish": plain.choices[0].finish_reason}
print(json.dumps(out))
