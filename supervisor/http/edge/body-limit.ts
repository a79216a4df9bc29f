import { readRequestBody } from '@modelcontextprotocol/server';

// One request-body cap for every HTTP edge (the gateway's /mcp and the bridge profile).

/**
 * The body text, or undefined when it exceeds `max` bytes. A declared Content-Length is judged
 * before a byte is read (Node's parser holds the body to that length), and such a body is read in
 * one piece; a chunked body is streamed under the cap and reading stops at the first byte over it.
 */
export async function readCappedBody(request: Request, max: number): Promise<string | undefined> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared)) {
    if (Number(declared) > max) return undefined;
    return request.text();
  }
  const body = await readRequestBody(request, max);
  return body.tooLarge ? undefined : body.text;
}
