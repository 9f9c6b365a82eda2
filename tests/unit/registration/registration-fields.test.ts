/**
 * The text rules of register_agent's name and metadata URI (pure): UTF-8 byte lengths, as the
 * registry program counts them, and the characters that hide or reorder text.
 */
import { describe, expect, test } from "bun:test";
import {
  MAX_AGENT_NAME_BYTES,
  MAX_METADATA_URI_BYTES,
  agentNameProblems,
  findHiddenCharacter,
  metadataUriTextProblems,
  utf8ByteLength,
} from "../../../src/domain/registry/registration-fields.ts";

describe("lengths are UTF-8 bytes, the registry program's measure", () => {
  test("64 ASCII characters fit; 65 do not", () => {
    expect(agentNameProblems("n".repeat(MAX_AGENT_NAME_BYTES))).toEqual([]);
    expect(agentNameProblems("n".repeat(MAX_AGENT_NAME_BYTES + 1))[0]).toContain("65 bytes in UTF-8 (65 characters)");
  });

  test("16 four-byte emoji fit (64 bytes); 17 do not, though 17 characters is far under 64", () => {
    expect(utf8ByteLength("😀")).toBe(4);
    expect(agentNameProblems("😀".repeat(16))).toEqual([]);
    expect(agentNameProblems("😀".repeat(17))[0]).toContain("68 bytes in UTF-8 (17 characters)");
  });

  test("a 200-character URI with non-ASCII characters is over 200 bytes; a 200-byte ASCII URI fits", () => {
    const ascii = `https://agents.example.com/${"a".repeat(MAX_METADATA_URI_BYTES - 27)}`;
    expect(ascii.length).toBe(200);
    expect(metadataUriTextProblems(ascii)).toEqual([]);
    const accented = `https://agents.example.com/${"é".repeat(173)}`;
    expect([...accented].length).toBe(200);
    expect(metadataUriTextProblems(accented)[0]).toContain("373 bytes in UTF-8 (200 characters)");
  });
});

describe("SECURITY: hidden characters are refused in the name and the URI", () => {
  const refused: Array<[string, string]> = [
    ["NUL", "\u0000"],
    ["newline", "\n"],
    ["carriage return", "\r"],
    ["tab", "\t"],
    ["DEL", "\u007F"],
    ["C1 control (NEL)", "\u0085"],
    ["C1 control (CSI)", "\u009B"],
    ["left-to-right mark", "\u200E"],
    ["right-to-left mark", "\u200F"],
    ["left-to-right embedding", "\u202A"],
    ["right-to-left override", "\u202E"],
    ["left-to-right isolate", "\u2066"],
    ["pop directional isolate", "\u2069"],
    ["Arabic letter mark", "\u061C"],
    ["zero-width space", "\u200B"],
    ["word joiner", "\u2060"],
    ["byte-order mark", "\uFEFF"],
    ["soft hyphen", "\u00AD"],
    ["line separator", "\u2028"],
    ["paragraph separator", "\u2029"],
    ["lone surrogate", "\uD800"],
    ["stray tag character (ASCII smuggling)", "\u{E0041}"],
  ];
  for (const [what, character] of refused) {
    test(`${what} is refused, named by code point and position`, () => {
      const name = `ab${character}cd`;
      const hidden = findHiddenCharacter(name);
      expect(hidden?.position).toBe(3);
      expect(hidden?.codePoint).toBe(`U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`);
      expect(agentNameProblems(name)[0]).toContain(`holds ${hidden?.codePoint} at character 3`);
      expect(metadataUriTextProblems(`https://a.example/${character}.json`).length).toBeGreaterThan(0);
    });
  }

  test("what real names need stays allowed: scripts, emoji, ZWJ sequences, ZWNJ, variation selectors, subdivision flags", () => {
    for (const name of ["Météo", "天气预报", "Погода", "مرحبا", "👨‍👩‍👧", "🏳️‍🌈", "می‌خواهم", "🏴󠁧󠁢󠁳󠁣󠁴󠁿 agent", "a b"]) {
      expect({ name, problems: agentNameProblems(name) }).toEqual({ name, problems: [] });
    }
  });

  test("the position counts characters, not UTF-16 units, so an emoji before it counts once", () => {
    expect(findHiddenCharacter("😀😀\u202E")?.position).toBe(3);
  });

  test("a URI holds no raw whitespace (the fetcher would hash another URL than the one stored)", () => {
    expect(metadataUriTextProblems("https://a.example/a b.json")[0]).toContain("whitespace (U+0020) at character 20");
    expect(metadataUriTextProblems("https://a.example/a\u00A0b.json")[0]).toContain("U+00A0");
    expect(metadataUriTextProblems("https://a.example/a%20b.json")).toEqual([]);
  });

  test("a name both too long and hiding a character gets both problems", () => {
    expect(agentNameProblems(`${"n".repeat(70)}\u202E`)).toHaveLength(2);
  });
});
