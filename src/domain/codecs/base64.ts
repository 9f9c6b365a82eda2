/**
 * Base64 of bytes, through the runtime's native Uint8Array methods (ES2026; Bun and Deno have
 * them, and the service runs on nothing older: Node only installs dependencies). They are about
 * 100x faster than `btoa` over a spread of char codes (0.1 against 41 µs for a 420-byte
 * transaction, which `sendTransaction` pays on every settlement). Decoding accepts exactly what
 * `atob` accepts (ASCII whitespace, optional padding) and throws a SyntaxError on anything else.
 */
type NativeBase64 = Readonly<{ toBase64: (this: Uint8Array) => string }>;
type NativeBase64Constructor = Readonly<{ fromBase64: (text: string) => Uint8Array }>;

const nativeToBase64 = (Uint8Array.prototype as unknown as NativeBase64).toBase64;
const nativeFromBase64 = (Uint8Array as unknown as NativeBase64Constructor).fromBase64;

export function toBase64(bytes: Uint8Array): string {
  return nativeToBase64.call(bytes);
}

export function fromBase64(text: string): Uint8Array {
  return nativeFromBase64(text);
}
