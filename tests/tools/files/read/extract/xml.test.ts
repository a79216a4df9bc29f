import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExtractionError } from '../../../../../supervisor/tools/files/read/extract/text.js';
import { iterXml, optionalXml, xmlOrNull, zipXml, type XmlElement } from '../../../../../supervisor/tools/files/read/extract/xml.js';
import { Zip } from '../../../../../supervisor/tools/files/read/extract/zip.js';
import { zip } from '../../../../helpers/zip.js';

const parse = (text: string | Buffer): XmlElement => {
  const el = xmlOrNull(Buffer.isBuffer(text) ? text : Buffer.from(text));
  assert.ok(el, 'expected well-formed XML');
  return el;
};

test('tags and attributes as ElementTree names them: {uri}local, xmlns declarations left out', () => {
  const root = parse('<a:root xmlns:a="urn:x" xmlns="urn:d" a:k="1" plain="2"><child>t</child></a:root>');
  assert.equal(root.tag, '{urn:x}root');
  assert.deepEqual([...root.attrs], [['{urn:x}k', '1'], ['plain', '2']]);
  assert.equal(root.children[0]!.tag, '{urn:d}child');
  assert.equal(root.children[0]!.text, 't');
});

test("an element's text is its leading text: CDATA, references and normalised line ends; comments and PIs dropped", () => {
  const root = parse('<r>a\r\nb<!-- c --><?pi x?><![CDATA[<d>]]>&amp;&#65;<x/>tail</r>');
  assert.equal(root.text, 'a\nb<d>&A');
  assert.equal(root.children.length, 1);
});

test('iterXml walks the element and its descendants in document order, by tag', () => {
  const root = parse('<r><p id="1"><p id="2"/></p><q><p id="3"/></q></r>');
  assert.deepEqual([...iterXml(root, 'p')].map((e) => e.attrs.get('id')), ['1', '2', '3']);
  assert.deepEqual([...iterXml(root)].map((e) => e.tag), ['r', 'p', 'p', 'q', 'p']);
});

test('encodings: a UTF-16 byte-order mark, a Latin-1 declaration; bytes not of the encoding are malformed', () => {
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<r>ü</r>', 'utf16le')]);
  assert.equal(parse(utf16).text, 'ü');
  assert.equal(parse(Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><r>'), Buffer.from([0xfc]), Buffer.from('</r>')])).text, 'ü');
  assert.equal(xmlOrNull(Buffer.concat([Buffer.from('<r>'), Buffer.from([0xfc]), Buffer.from('</r>')])), null);
  assert.equal(xmlOrNull(Buffer.from('<?xml version="1.0" encoding="KOI8-R"?><r/>')), null);
});

test('what expat refuses is malformed: entities, unbound prefixes, junk, nothing', () => {
  for (const bad of ['<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>', '<r>&nbsp;</r>', '<p:r/>', '<r></s>', '<r/>junk', '']) {
    assert.equal(xmlOrNull(Buffer.from(bad)), null, bad);
  }
});

test('zipXml names the member of malformed XML; optionalXml is null for absent or malformed', async () => {
  const z = await Zip.open(zip([{ name: 'good.xml', data: Buffer.from('<r/>') }, { name: 'bad.xml', data: Buffer.from('<r>') }]), 'DOCX');
  try {
    assert.equal((await zipXml(z, 'good.xml')).tag, 'r');
    await assert.rejects(zipXml(z, 'bad.xml'), (e: unknown) => e instanceof ExtractionError && e.message.startsWith('Malformed XML in bad.xml: '));
    await assert.rejects(zipXml(z, 'none.xml'), { message: 'Missing none.xml' });
    assert.equal(await optionalXml(z, 'none.xml'), null);
    assert.equal(await optionalXml(z, 'bad.xml'), null);
    assert.equal((await optionalXml(z, 'good.xml'))?.tag, 'r');
  } finally {
    z.close();
  }
});
