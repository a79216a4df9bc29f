import { createRequire } from 'node:module';
import { ExtractionError } from './text.js';
import type { Zip } from './zip.js';

// XML elements, as much of Python's ElementTree as the .docx/.xlsx extractors use: parsed by saxes
// (a conforming, namespace-aware parser that expands no entity beyond XML's five and character
// references: a DOCTYPE's own entities are refused, external ones never read).
//
// saxes is loaded on first use (its CommonJS build), like yauzl in zip.ts: an idle
// gateway should not carry an XML parser it may never need.
const requireHere = createRequire(import.meta.url);
let saxesModule: typeof import('saxes') | undefined;
const saxesLib = (): typeof import('saxes') => (saxesModule ??= requireHere('saxes') as typeof import('saxes'));

class XmlParseError extends ExtractionError {}

/** An element as ElementTree gives it: `{uri}local` tags and attribute names, its leading text. */
export interface XmlElement {
  tag: string;
  attrs: Map<string, string>;
  children: XmlElement[];
  text: string;
}

/** The encodings expat itself reads (UTF-8 and UTF-16 aside), by the names it knows them by. */
const LATIN1 = new Set(['iso-8859-1', 'iso8859-1', 'latin-1', 'latin1', 'l1']);
const ASCII = new Set(['us-ascii', 'ascii']);
const UTF8 = new Set(['utf-8', 'utf8']);
const XML_DECL_ENCODING = /^<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._-]*)\1/;
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });
const UTF16LE_STRICT = new TextDecoder('utf-16le', { fatal: true });
const UTF16BE_STRICT = new TextDecoder('utf-16be', { fatal: true });

/**
 * The document's text as expat reads it (XML 1.0 Appendix F): UTF-16 after its byte-order mark,
 * else the encoding its XML declaration names, else UTF-8. Bytes not of that encoding make it
 * malformed, and so does an encoding other than UTF-8, UTF-16, ISO-8859-1 and US-ASCII (Python
 * lends expat its single-byte codecs too; an Office document may only be UTF-8 or UTF-16).
 */
function xmlSource(bytes: Buffer): string {
  const invalid = () => new XmlParseError('not well-formed (invalid token)');
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return UTF16LE_STRICT.decode(bytes);
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return UTF16BE_STRICT.decode(bytes);
    const declared = bytes[0] === 0x3c ? XML_DECL_ENCODING.exec(bytes.subarray(0, 256).toString('latin1'))?.[2]?.toLowerCase() : undefined;
    if (declared === undefined || UTF8.has(declared)) {
      const bad = firstInvalidUtf8(bytes);
      if (bad >= 0) throw new XmlParseError(`not well-formed (invalid token): ${expatPosition(bytes.subarray(0, bad))}`);
      return UTF8_STRICT.decode(bytes);
    }
    if (LATIN1.has(declared)) return bytes.toString('latin1');
    if (ASCII.has(declared)) {
      if (bytes.some((b) => b > 0x7f)) throw invalid();
      return bytes.toString('latin1');
    }
    throw new XmlParseError(`unknown encoding: ${declared}`);
  } catch (e) {
    if (e instanceof XmlParseError) throw e;
    throw invalid(); // TextDecoder's TypeError for bytes that are not UTF-8 / UTF-16
  }
}

/** The index of the first byte that starts no valid UTF-8 sequence (overlong, surrogate, cut or past U+10FFFF), or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let cp = b & (0xff >> (need + 2));
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** Where expat reports an error at the end of `before` (valid UTF-8): "line L, column C", columns in characters from 0. */
function expatPosition(before: Uint8Array): string {
  const text = UTF8_STRICT.decode(before);
  const lines = text.split(/\r\n|\r|\n/);
  return `line ${lines.length}, column ${Array.from(lines[lines.length - 1]!).length}`;
}

const clark = (uri: string, local: string): string => (uri ? `{${uri}}${local}` : local);

/** The document's root element; malformed XML throws XmlParseError. */
function parseXml(bytes: Buffer): XmlElement {
  const parser = new (saxesLib().SaxesParser)({ xmlns: true, position: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  parser.on('opentag', (tag) => {
    const attrs = new Map<string, string>();
    for (const attr of Object.values(tag.attributes)) {
      if (attr.name === 'xmlns' || attr.prefix === 'xmlns') continue; // declarations, not attributes, to ElementTree
      attrs.set(clark(attr.uri, attr.local), attr.value);
    }
    const el: XmlElement = { tag: clark(tag.uri, tag.local), attrs, children: [], text: '' };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  // ElementTree's `text` is what comes before an element's first child (comments and PIs dropped).
  const addText = (text: string) => {
    const top = stack[stack.length - 1];
    if (top && top.children.length === 0) top.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  try {
    parser.write(xmlSource(bytes)).close();
  } catch (e) {
    if (e instanceof XmlParseError) throw e;
    throw new XmlParseError((e as Error).message);
  }
  if (root === null) throw new XmlParseError('no element found');
  return root;
}

/** ElementTree's `iter(tag)`: the element and its descendants with that tag, in document order. */
export function* iterXml(el: XmlElement, tag?: string): Generator<XmlElement> {
  if (tag === undefined || el.tag === tag) yield el;
  for (const child of el.children) yield* iterXml(child, tag);
}

/** A member parsed; malformed XML throws ExtractionError `Malformed XML in <name>`. */
export async function zipXml(zip: Zip, name: string): Promise<XmlElement> {
  const bytes = await zip.read(name);
  try {
    return parseXml(bytes);
  } catch (e) {
    if (e instanceof XmlParseError) throw new ExtractionError(`Malformed XML in ${name}: ${e.message}`);
    throw e;
  }
}

/** The root element, or null when the bytes are malformed XML (upstream treats that as "none"). */
export function xmlOrNull(bytes: Buffer): XmlElement | null {
  try {
    return parseXml(bytes);
  } catch (e) {
    if (e instanceof XmlParseError) return null;
    throw e;
  }
}

/** A member parsed, or null when it is absent or malformed (upstream treats both as "none"). */
export async function optionalXml(zip: Zip, name: string): Promise<XmlElement | null> {
  if (!zip.entries.has(name)) return null;
  return xmlOrNull(await zip.read(name));
}
