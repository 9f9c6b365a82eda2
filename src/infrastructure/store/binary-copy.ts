/**
 * Rows of PostgreSQL's binary COPY format (`COPY ... TO STDOUT (FORMAT binary)`), read from the
 * pieces as they arrive: the 11-byte signature, flags and header extension, then per row a 16-bit
 * field count and each field as a 32-bit length (-1: NULL) and its bytes, until a count of -1.
 * Fields are views into the pieces (no copy); a row split across pieces is joined first.
 */
const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];

export async function* binaryCopyRows(pieces: AsyncIterable<Uint8Array>): AsyncGenerator<(Uint8Array | null)[]> {
  let buffer: Uint8Array = new Uint8Array(0);
  let at = 0;
  let headerRead = false;
  let done = false;
  for await (const piece of pieces) {
    if (done) continue;
    buffer = at < buffer.length ? joined(buffer.subarray(at), piece) : piece;
    at = 0;
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    if (!headerRead) {
      if (buffer.length < 19) continue;
      for (let i = 0; i < SIGNATURE.length; i++) if (buffer[i] !== SIGNATURE[i]) throw new Error("not PostgreSQL's binary COPY format");
      const extension = view.getUint32(15);
      if (buffer.length < 19 + extension) continue;
      at = 19 + extension;
      headerRead = true;
    }
    for (;;) {
      const row = rowAt(buffer, view, at);
      if (row === null) break;
      at = row.end;
      if (row.fields === null) {
        done = true;
        break;
      }
      yield row.fields;
    }
  }
  if (!done) throw new Error("binary COPY ended before its trailer");
}

/** The row at `at`, or null when it is not all there yet; `fields` null for the trailer. */
function rowAt(buffer: Uint8Array, view: DataView, at: number): { fields: (Uint8Array | null)[] | null; end: number } | null {
  if (at + 2 > buffer.length) return null;
  const count = view.getInt16(at);
  let end = at + 2;
  if (count === -1) return { fields: null, end };
  if (count < 0) throw new Error("binary COPY: bad field count");
  const fields: (Uint8Array | null)[] = [];
  for (let i = 0; i < count; i++) {
    if (end + 4 > buffer.length) return null;
    const length = view.getInt32(end);
    end += 4;
    if (length === -1) {
      fields.push(null);
      continue;
    }
    if (length < 0) throw new Error("binary COPY: bad field length");
    if (end + length > buffer.length) return null;
    fields.push(buffer.subarray(end, end + length));
    end += length;
  }
  return { fields, end };
}

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
