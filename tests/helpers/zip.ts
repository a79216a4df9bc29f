import { crc32, deflateRawSync } from 'node:zlib';

// ZIP archives for the document-extraction tests, written field by field so that a test can make
// the headers say what a real writer never would (a size or CRC-32 that lies).

export interface Member {
  name: string;
  data: Buffer;
  /** Stored as is rather than deflated. */
  stored?: boolean;
  /** What the headers say it inflates to (default: its real size). */
  declaredSize?: number;
  /** What the headers say its CRC-32 is (default: the real one). */
  crc?: number;
}

/** A ZIP archive written field by field, so that its headers can say what a real writer never would. */
export function zip(members: Member[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    const body = m.stored ? m.data : deflateRawSync(m.data);
    const fields = (h: Buffer, at: number) => {
      h.writeUInt16LE(20, at); // version needed
      h.writeUInt16LE(0x800, at + 2); // UTF-8 names
      h.writeUInt16LE(m.stored ? 0 : 8, at + 4);
      h.writeUInt32LE(0, at + 6); // time, date
      h.writeUInt32LE(m.crc ?? crc32(m.data), at + 10);
      h.writeUInt32LE(body.length, at + 14);
      h.writeUInt32LE(m.declaredSize ?? m.data.length, at + 18);
      h.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    fields(central, 6);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
