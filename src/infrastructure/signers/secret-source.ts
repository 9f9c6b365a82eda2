import { readFileSync } from "node:fs";
import type { SecretSource } from "./signer-config.ts";
import { SignerError } from "./signer-error.ts";

export type Env = Readonly<Record<string, string | undefined>>;
export type ReadTextFile = (path: string) => string;

export type SecretDeps = Readonly<{ env: Env; readFile: ReadTextFile }>;

export const readTextFileSync: ReadTextFile = (path) => readFileSync(path, "utf8");

/**
 * Reads a secret at the moment a signer is built, so it lives in as few places as possible.
 * Errors name the setting; the underlying I/O error is reduced to its code because some
 * runtimes include file contents or paths of other files in messages.
 */
export function resolveSecret(source: SecretSource, deps: SecretDeps): string {
  switch (source.from) {
    case "env": {
      const value = deps.env[source.variable];
      if (value === undefined || value.trim() === "") {
        throw new SignerError("CONFIG_INVALID", `${source.setting} is not set`);
      }
      return value.trim();
    }
    case "file":
      return readSecretFile(source.path, source.setting, deps.readFile).trim();
    case "signers-file":
      return readFromSignersFile(source, deps.readFile);
  }
}

function readSecretFile(path: string, setting: string, readFile: ReadTextFile): string {
  try {
    return readFile(path);
  } catch (error) {
    throw new SignerError("CONFIG_INVALID", `${setting}: cannot read the file it names (${ioCode(error)})`);
  }
}

function readFromSignersFile(source: Extract<SecretSource, { from: "signers-file" }>, readFile: ReadTextFile): string {
  const text = readSecretFile(source.path, source.setting, readFile);
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    throw new SignerError("CONFIG_INVALID", `${source.setting}: the signers file is not valid JSON`);
  }
  const entry = Array.isArray(entries) ? (entries[source.index] as unknown) : undefined;
  const value = typeof entry === "object" && entry !== null ? (entry as Record<string, unknown>)[source.field] : undefined;
  if (typeof value !== "string" || value.trim() === "") {
    throw new SignerError("CONFIG_INVALID", `${source.setting} is missing from the signers file`);
  }
  return value.trim();
}

function ioCode(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "read failed";
}
