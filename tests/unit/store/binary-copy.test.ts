import { describe, expect, test } from "bun:test";
import { binaryCopyRows } from "../../../src/infrastructure/store/binary-copy.ts";

/** PostgreSQL's binary COPY of rows of (int4, bytea), as the server sends it. */
function copyBytes(rows: readonly (readonly [number, Uint8Array | null])[]): Uint8Array {
  const parts: number[] = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0];
  const be = (value: number, bytes: number) => {
    for (let i = bytes - 1; i >= 0; i--) parts.push((value >>> (i * 8)) & 255);
  };
  for (const [n, data] of rows) {
    be(2, 2);
    be(4, 4);
    be(n, 4);
    if (data === null) be(0xffffffff, 4);
    else {
      be(data.length, 4);
      parts.push(...data);
    }
  }
  be(0xffff, 2);
  return Uint8Array.from(parts);
}

async function* piecesOf(bytes: Uint8Array, cuts: readonly number[]): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
}

async function rowsOf(pieces: AsyncIterable<Uint8Array>): Promise<(number[] | null)[][]> {
  const out: (number[] | null)[][] = [];
  for await (const fields of binaryCopyRows(pieces)) out.push(fields.map((f) => (f === null ? null : [...f])));
  return out;
}

describe("binary COPY rows", () => {
  const rows = [
    [0, Uint8Array.from([1, 2, 3])],
    [1, new Uint8Array(0)],
    [2, null],
    [3, Uint8Array.from({ length: 300 }, (_, i) => i & 255)],
  ] as const;
  const bytes = copyBytes(rows);
  const expected = rows.map(([n, data]) => [[(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255], data === null ? null : [...data]]);

  test("the same rows however the stream is cut into pieces (each byte boundary, and one piece)", async () => {
    expect(await rowsOf(piecesOf(bytes, []))).toEqual(expected);
    for (let cut = 1; cut < bytes.length; cut++) expect(await rowsOf(piecesOf(bytes, [cut]))).toEqual(expected);
    expect(await rowsOf(piecesOf(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)))).toEqual(expected);
  });

  test("a stream that ends before its trailer, or is not the binary format, is refused", async () => {
    for (const end of [0, 5, 19, 30, bytes.length - 1]) await expect(rowsOf(piecesOf(bytes.subarray(0, end), []))).rejects.toThrow();
    const text = new TextEncoder().encode("1\t\\x0102\n");
    await expect(rowsOf(piecesOf(Uint8Array.from([...text, ...new Uint8Array(20)]), []))).rejects.toThrow("binary COPY");
  });
});
