import { readFile } from "node:fs/promises";
import { isAddress } from "@solana/kit";

/**
 * The operator's files named by settings. A file that cannot be read or parsed stops the boot with
 * a message naming the setting and the entry, never the file's contents (API key hashes, say).
 */
async function readSetting(setting: string, path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = error && typeof error === "object" && "code" in error ? String(error.code) : "read error";
    throw new Error(`${setting} cannot be read (${code})`);
  }
}

/**
 * PAYTO_ALLOWLIST_FILE: a JSON array of base58 addresses, or one address per line (`#` comments).
 * An empty list is refused: it would refuse every payment, which is never what an operator meant.
 */
export async function loadPayToAllowlist(path: string): Promise<readonly string[]> {
  const text = await readSetting("PAYTO_ALLOWLIST_FILE", path);
  const trimmed = text.trim();
  const entries: unknown[] = trimmed.startsWith("[")
    ? parseJsonArray("PAYTO_ALLOWLIST_FILE", trimmed)
    : trimmed.split("\n").map((line) => line.replace(/#.*/, "").trim()).filter((line) => line !== "");
  entries.forEach((entry, index) => {
    if (typeof entry !== "string" || !isAddress(entry)) throw new Error(`PAYTO_ALLOWLIST_FILE: entry ${index + 1} is not a base58 address`);
  });
  if (entries.length === 0) throw new Error("PAYTO_ALLOWLIST_FILE lists no address");
  return Object.freeze(entries as string[]);
}

/** One API key as kept at rest: a name for logs and the SHA-256 of the key, never the key. */
export type ApiKeyEntry = Readonly<{ name: string; sha256: string }>;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** FACILITATOR_API_KEYS_FILE: `[{"name": "shop-a", "sha256": "<64 lowercase hex>"}, ...]`. */
export async function loadApiKeyHashes(path: string): Promise<readonly ApiKeyEntry[]> {
  const entries = parseJsonArray("FACILITATOR_API_KEYS_FILE", await readSetting("FACILITATOR_API_KEYS_FILE", path));
  const keys = entries.map((entry, index): ApiKeyEntry => {
    const record = entry as Record<string, unknown> | null;
    const name = record?.["name"];
    const sha256 = typeof record?.["sha256"] === "string" ? record["sha256"].toLowerCase() : null;
    if (typeof name !== "string" || name === "" || sha256 === null || !SHA256_HEX.test(sha256)) {
      throw new Error(`FACILITATOR_API_KEYS_FILE: entry ${index + 1} needs a name and a sha256 of 64 hex characters`);
    }
    return Object.freeze({ name, sha256 });
  });
  if (keys.length === 0) throw new Error("FACILITATOR_API_KEYS_FILE lists no key");
  return Object.freeze(keys);
}

/**
 * The configured API keys, or null without FACILITATOR_API_KEYS_FILE. Read once per boot and handed
 * to everything that needs them (the guard, the webhooks' `apiKey` check), so they cannot disagree.
 */
export async function loadConfiguredApiKeys(config: Readonly<{ FACILITATOR_API_KEYS_FILE?: string | undefined }>): Promise<readonly ApiKeyEntry[] | null> {
  return config.FACILITATOR_API_KEYS_FILE ? loadApiKeyHashes(config.FACILITATOR_API_KEYS_FILE) : null;
}

function parseJsonArray(setting: string, text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${setting} is not valid JSON`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${setting} must hold a JSON array`);
  return parsed;
}
