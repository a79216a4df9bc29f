import { crc32 } from 'node:zlib';
import { createRequire } from 'node:module';
import type yauzl from 'yauzl';
import { ExtractionError } from './text.js';

// ZIP members, as much of Python's zipfile as the .docx/.xlsx extractors use: the archive is read
// by yauzl (central directory, zip64, local headers, stored and deflated members).
//
// yauzl is loaded on first use (its CommonJS build): read_file renders notebooks on the event loop
// through read/extract/, and an idle gateway should not carry a ZIP reader it may never need
// (every module loaded at start-up counts against the idle-RSS budget).
const requireHere = createRequire(import.meta.url);
let yauzlModule: typeof yauzl | undefined;
const yauzlLib = (): typeof yauzl => (yauzlModule ??= requireHere('yauzl') as typeof yauzl);

/** The most one ZIP member may inflate to: a larger one (declared or actual) is refused, not inflated. */
export const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

const EOCD_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/**
 * The archive where zipfile finds it, when that is not the whole file: its end record's comment
 * taken at its stated length (bytes after it ignored), and bytes before it skipped (zipfile
 * subtracts them from every offset, as for a self-extracting archive). Null when nothing is cut.
 */
function archiveWithin(bytes: Buffer): Buffer | null {
  const eocd = bytes.lastIndexOf(EOCD_SIGNATURE, Math.max(0, bytes.length - 22));
  if (eocd < 0 || eocd + 22 > bytes.length) return null;
  const end = Math.min(bytes.length, eocd + 22 + bytes.readUInt16LE(eocd + 20));
  const start = Math.max(0, eocd - bytes.readUInt32LE(eocd + 12) - bytes.readUInt32LE(eocd + 16));
  return start > 0 || end < bytes.length ? bytes.subarray(start, end) : null;
}

const ZIP_OPTIONS = { autoClose: false, decodeStrings: false, validateEntrySizes: false };

/** Python's `repr()` of a plain string (quotes chosen as Python chooses them). */
function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  return quote + s.replace(/\\/g, '\\\\').replace(new RegExp(quote, 'g'), `\\${quote}`) + quote;
}

/** The archive and its members by name, as zipfile names them (UTF-8 when flagged, else cp437, cut at a NUL; a later duplicate wins). */
async function listZip(bytes: Buffer): Promise<{ zip: yauzl.ZipFile; entries: Map<string, yauzl.Entry> }> {
  const zip = await yauzlLib().fromBufferPromise(bytes, ZIP_OPTIONS);
  try {
    const entries = new Map<string, yauzl.Entry>();
    for await (const entry of zip.eachEntry()) {
      const name = yauzlLib().getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      const nul = name.indexOf('\0');
      entries.set(nul < 0 ? name : name.slice(0, nul), entry);
    }
    return { zip, entries };
  } catch (e) {
    zip.close();
    throw e;
  }
}

/** yauzl's word for what Python's zipfile calls "File is not a zip file". */
const NO_END_RECORD = /end of central directory record signature not found/i;

/**
 * A ZIP archive's members by name; `open` throws ExtractionError when it is not one. Its messages
 * are zipfile's where Hermes' answer shows them (`Not a valid DOCX: File is not a zip file`,
 * `Not a valid DOCX: Bad CRC-32 for file 'word/document.xml'`).
 */
export class Zip {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    readonly entries: Map<string, yauzl.Entry>,
    private readonly kind: string,
  ) {}

  static async open(bytes: Buffer, kind: string): Promise<Zip> {
    try {
      let listed;
      try {
        listed = await listZip(bytes);
      } catch (e) {
        // yauzl wants the archive to be the whole file; zipfile also reads one with bytes before or after it.
        const within = archiveWithin(bytes);
        if (within === null) throw e;
        listed = await listZip(within);
      }
      return new Zip(listed.zip, listed.entries, kind);
    } catch (e) {
      const message = (e as Error).message;
      throw new ExtractionError(`Not a valid ${kind}: ${NO_END_RECORD.test(message) ? 'File is not a zip file' : message}`);
    }
  }

  close(): void {
    this.zip.close();
  }

  /**
   * A member's bytes, checked as zipfile checks them (its CRC-32). One declared or found larger than
   * MAX_MEMBER_BYTES, or larger than its declared size, is refused as soon as that is known: a
   * zip bomb is never inflated past the cap. A missing member throws ExtractionError `Missing <name>`.
   */
  async read(name: string): Promise<Buffer> {
    const entry = this.entries.get(name);
    if (!entry) throw new ExtractionError(`Missing ${name}`);
    if (entry.uncompressedSize > MAX_MEMBER_BYTES) throw new ExtractionError(`Member ${name} would inflate to ${entry.uncompressedSize} bytes, over ${MAX_MEMBER_BYTES}`);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      const stream = await this.zip.openReadStreamPromise(entry);
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length;
          // zipfile reads a member to its declared size, whose CRC-32 then cannot match.
          if (size > entry.uncompressedSize) throw this.badCrc(name);
          chunks.push(chunk);
        }
      } finally {
        stream.destroy();
      }
    } catch (e) {
      if (e instanceof ExtractionError) throw e;
      throw new ExtractionError(`Bad member ${name}: ${(e as Error).message}`);
    }
    const data = Buffer.concat(chunks, size);
    if (crc32(data) !== entry.crc32) throw this.badCrc(name);
    return data;
  }

  /** zipfile's BadZipFile for a member, as Hermes words it (`repr` of the name). */
  private badCrc(name: string): ExtractionError {
    return new ExtractionError(`Not a valid ${this.kind}: Bad CRC-32 for file ${pyRepr(name)}`);
  }
}
