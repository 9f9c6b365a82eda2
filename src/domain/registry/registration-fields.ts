/**
 * The text rules of register_agent's `name` and `metadata_uri`, as the registry program stores them.
 *
 * Lengths are UTF-8 bytes, not characters. The program is Rust: `String::len()` counts bytes, it
 * refuses `metadata_uri.len() > 200` (MetadataUriTooLong) and sizes its accounts in bytes, and the
 * Borsh argument is a byte string. So the spec's "64 characters" and "200 characters" are read as
 * bytes: the same for ASCII, fewer characters for other scripts (2 to 3 bytes each) and emoji (4
 * bytes each). Counting characters would sign transactions the program refuses, or that are over
 * the packet limit. Free tags stay counted in characters: they are hashed, never stored as text.
 */

/** `name`: at most 64 UTF-8 bytes (64 ASCII characters, 16 four-byte emoji). */
export const MAX_AGENT_NAME_BYTES = 64;
/** `metadataUri`: at most 200 UTF-8 bytes, the program's MetadataUriTooLong limit. */
export const MAX_METADATA_URI_BYTES = 200;

/**
 * A development metadata URI: plain http to this machine, by the two names a laptop serves on
 * (`127.0.0.1`, `localhost`), any port, no credentials. Admitted only where METADATA_ALLOW_LOOPBACK
 * is on, which production refuses: on a server it would let any caller make the service fetch
 * from its own loopback services.
 */
export function isLoopbackHttpUrl(url: URL): boolean {
  return url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "localhost") && url.username === "" && url.password === "";
}

const utf8 = new TextEncoder();

export function utf8ByteLength(text: string): number {
  return utf8.encode(text).length;
}

/**
 * SECURITY: characters that reorder, hide or break text wherever a name is shown (an explorer, a
 * wallet, a terminal, a log line, an AI agent reading the registry): C0 and C1 controls with NUL,
 * newline and DEL (Cc); format characters (Cf), among them the bidi marks, embeddings, overrides
 * and isolates (U+200E/F, U+202A-202E, U+2066-2069, "Trojan Source" spoofing), the BOM, soft hyphen
 * and word joiners; line and paragraph separators (Zl, Zp); and lone UTF-16 surrogates (Cs), which
 * UTF-8 cannot hold and would reach the ledger as U+FFFD. Two Cf characters are allowed where text
 * needs them: ZWNJ and ZWJ (U+200C, U+200D: emoji sequences, Persian and Indic scripts), and the tag
 * characters only inside a subdivision flag (U+1F3F4 ... U+E007F), since stray tag characters are
 * invisible text ("ASCII smuggling" aimed at language models).
 */
const HIDDEN = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]|(?![\u200C\u200D])\p{Cf}/u;
const FLAG_TAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,7}\u{E007F}/gu;
const TAG_CHARACTER = /^[\u{E0020}-\u{E007F}]$/u;

export type HiddenCharacter = Readonly<{ codePoint: string; position: number }>;

/** The first hidden character of `text` (its code point as U+XXXX and its 1-based character position), or null. */
export function findHiddenCharacter(text: string): HiddenCharacter | null {
  const inFlags = new Set<number>();
  for (const match of text.matchAll(FLAG_TAG_SEQUENCE)) {
    for (let i = match.index; i < match.index + match[0].length; i++) inFlags.add(i);
  }
  let offset = 0;
  let position = 0;
  for (const character of text) {
    position += 1;
    const allowedTag = TAG_CHARACTER.test(character) && inFlags.has(offset);
    if (!allowedTag && HIDDEN.test(character)) return { codePoint: codePointName(character), position };
    offset += character.length;
  }
  return null;
}

/** Why `name` cannot be written on chain (empty when it can). */
export function agentNameProblems(name: string): string[] {
  return [...byteLengthProblem("name", name, MAX_AGENT_NAME_BYTES), ...hiddenCharacterProblem("name", name)];
}

/**
 * Why `metadataUri` cannot be written on chain as the URI the fetcher hashes (empty when it can).
 * A URI holds no raw whitespace either (RFC 3986): the URL parser would drop or percent-encode it,
 * so the document hashed would not be the one at the text stored on chain.
 */
export function metadataUriTextProblems(uri: string): string[] {
  const hidden = hiddenCharacterProblem("metadataUri", uri);
  const space = hidden.length === 0 ? whitespaceProblem(uri) : [];
  return [...byteLengthProblem("metadataUri", uri, MAX_METADATA_URI_BYTES), ...hidden, ...space];
}

function byteLengthProblem(field: string, text: string, max: number): string[] {
  const bytes = utf8ByteLength(text);
  if (bytes <= max) return [];
  const characters = [...text].length;
  return [
    `${field} is ${bytes} bytes in UTF-8 (${characters} characters); the registry program stores at most ${max} bytes ` +
      `(${max} ASCII characters; other scripts and emoji take 2 to 4 bytes each)`,
  ];
}

function hiddenCharacterProblem(field: string, text: string): string[] {
  const hidden = findHiddenCharacter(text);
  if (hidden === null) return [];
  return [
    `${field} holds ${hidden.codePoint} at character ${hidden.position}: control and invisible formatting characters ` +
      "(NUL, newlines, bidi overrides and isolates, zero-width marks) are refused because they reorder or hide text where it is shown",
  ];
}

function whitespaceProblem(uri: string): string[] {
  let position = 0;
  for (const character of uri) {
    position += 1;
    if (/\s/u.test(character)) return [`metadataUri holds whitespace (${codePointName(character)}) at character ${position}; percent-encode it (%20)`];
  }
  return [];
}

function codePointName(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}
