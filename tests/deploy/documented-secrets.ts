/**
 * The Secrets docs/deploy.md tells the operator to create, read from its `kubectl create secret
 * generic` commands: the manifests render no Secret (an apply must never overwrite a credential),
 * so the documented commands are the only place their names and keys are written down, and the
 * tests check the manifests against them.
 */
import { readFileSync } from "node:fs";

/** Secret name -> key -> value (a literal as written, or `<file path>` for --from-file). */
export type DocumentedSecrets = Readonly<Record<string, Readonly<Record<string, string>>>>;

export function documentedSecrets(markdown: string): DocumentedSecrets {
  const secrets: Record<string, Record<string, string>> = {};
  const envFiles = dotenvBlocks(markdown);
  for (const command of shellCommands(markdown)) {
    const words = shellWords(command);
    if (words.slice(0, 4).join(" ") !== "kubectl create secret generic") continue;
    const name = words.slice(4).find((word) => !word.startsWith("-"));
    if (name === undefined) throw new Error(`no Secret name in: ${command}`);
    const keys: Record<string, string> = {};
    for (const word of words) {
      const literal = /^--from-literal=([^=]+)=(.*)$/s.exec(word);
      if (literal) keys[literal[1]!] = literal[2]!;
      const file = /^--from-file=(?:([^=]+)=)?(.+)$/.exec(word);
      if (file) keys[file[1] ?? file[2]!.split("/").at(-1)!] = `<${file[2]}>`;
      const envFile = /^--from-env-file=(.+)$/.exec(word);
      if (envFile) {
        const name = envFile[1]!.split("/").at(-1)!;
        const shown = envFiles[name];
        if (shown === undefined) throw new Error(`${command}: no \`\`\`dotenv block shows ${name}`);
        Object.assign(keys, shown);
      }
    }
    secrets[name] = { ...secrets[name], ...keys };
  }
  return secrets;
}

export function readDocumentedSecrets(path: string): DocumentedSecrets {
  return documentedSecrets(readFileSync(path, "utf8"));
}

/**
 * The files an operator writes for `--from-env-file`, as the docs show them: a ```dotenv block
 * whose first line is `# <file name>`, then KEY=value lines (comments and blank lines skipped).
 */
function dotenvBlocks(markdown: string): Record<string, Record<string, string>> {
  const files: Record<string, Record<string, string>> = {};
  for (const block of markdown.matchAll(/```dotenv\n([\s\S]*?)```/g)) {
    const [first = "", ...lines] = block[1]!.split("\n");
    const name = /^#\s*(\S+)/.exec(first)?.[1];
    if (name === undefined) throw new Error("a ```dotenv block must start with `# <file name>`");
    const keys: Record<string, string> = {};
    for (const line of lines) {
      const pair = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
      if (pair) keys[pair[1]!] = pair[2]!;
    }
    files[name] = keys;
  }
  return files;
}

/** The commands of the ```sh blocks, `\` continuations joined, comments dropped. */
function shellCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    let pending = "";
    for (const raw of block[1]!.split("\n")) {
      const line = raw.replace(/^\s*#.*$/, "").trimEnd();
      if (line.endsWith("\\")) {
        pending += `${line.slice(0, -1)} `;
        continue;
      }
      const command = (pending + line).trim();
      pending = "";
      if (command !== "") commands.push(command);
    }
  }
  return commands;
}

/** Splits on blanks outside single or double quotes and removes the quotes, as a POSIX shell would for these commands. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: "'" | '"' | null = null;
  let started = false;
  for (const char of command) {
    if (quote !== null) {
      if (char === quote) quote = null;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started || word !== "") words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
    }
  }
  if (started || word !== "") words.push(word);
  return words;
}
