/**
 * A Dockerfile reader for invariant tests: instructions (continuations joined, comments dropped),
 * grouped by stage, with the few argument shapes the tests need. Not a full BuildKit frontend:
 * no heredocs and no variable expansion beyond `${NAME}` from ARG defaults in FROM.
 */
export type Instruction = Readonly<{ keyword: string; args: string; line: number }>;
export type Stage = Readonly<{ from: string; name: string | null; instructions: readonly Instruction[] }>;
export type Dockerfile = Readonly<{ globalArgs: Readonly<Record<string, string>>; stages: readonly Stage[] }>;

export function parseDockerfile(text: string): Dockerfile {
  const instructions = joinInstructions(text);
  const globalArgs: Record<string, string> = {};
  const stages: { from: string; name: string | null; instructions: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [image = "", as, name] = instruction.args.split(/\s+/);
      const resolved = image.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, arg: string) => globalArgs[arg] ?? "");
      stages.push({ from: resolved, name: as?.toUpperCase() === "AS" && name !== undefined ? name : null, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) {
      if (instruction.keyword === "ARG") Object.assign(globalArgs, parseArg(instruction.args));
      continue;
    }
    stage.instructions.push(instruction);
  }
  return { globalArgs, stages };
}

/** One instruction per logical line: `\` continuations joined, comment lines (also inside continuations) dropped. */
function joinInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = "";
  let startLine = 0;
  text.split("\n").forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith("#") || (trimmed === "" && pending === "")) return;
    if (pending === "") startLine = index + 1;
    const continued = trimmed.endsWith("\\");
    pending += `${continued ? trimmed.slice(0, -1) : trimmed} `;
    if (continued) return;
    const logical = pending.trim();
    pending = "";
    const match = /^(\S+)\s*([\s\S]*)$/.exec(logical);
    if (match !== null) out.push({ keyword: (match[1] ?? "").toUpperCase(), args: (match[2] ?? "").trim(), line: startLine });
  });
  return out;
}

function parseArg(args: string): Record<string, string> {
  const [name = "", value = ""] = args.split("=", 2);
  return { [name.trim()]: value.trim() };
}

/** The JSON array of an exec-form argument, or null for shell form. */
export function execForm(args: string): string[] | null {
  if (!args.startsWith("[")) return null;
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((part) => typeof part === "string") ? parsed : null;
  } catch {
    return null;
  }
}

/** `--name=value` flags at the front of an instruction's arguments, and the rest. */
export function splitFlags(args: string): Readonly<{ flags: Readonly<Record<string, string>>; rest: string }> {
  const flags: Record<string, string> = {};
  let rest = args;
  for (;;) {
    const match = /^--([a-z-]+)(?:=(\S+))?\s+/.exec(rest);
    if (match === null) break;
    flags[match[1] ?? ""] = match[2] ?? "true";
    rest = rest.slice(match[0].length);
  }
  return { flags, rest };
}

/** Sources and destination of a COPY/ADD (shell or JSON form), with its flags. */
export function copyArgs(args: string): Readonly<{ flags: Readonly<Record<string, string>>; sources: readonly string[]; dest: string }> {
  const { flags, rest } = splitFlags(args);
  const parts = execForm(rest) ?? rest.split(/\s+/);
  return { flags, sources: parts.slice(0, -1), dest: parts.at(-1) ?? "" };
}

/** Variables an ENV sets (`ENV a=1 b="two words"`, or the legacy `ENV a 1`). */
export function envVariables(args: string): Record<string, string> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const [name = "", ...value] = args.split(/\s+/);
    return { [name]: value.join(" ") };
  }
  const out: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const value = match[2] ?? "";
    out[match[1] ?? ""] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
  }
  return out;
}

/** Every variable the stage's ENV instructions set, later ones winning. */
export function stageEnv(stage: Stage): Record<string, string> {
  return Object.assign({}, ...stage.instructions.filter((i) => i.keyword === "ENV").map((i) => envVariables(i.args)));
}

/** The last instruction of a kind in a stage (the one that takes effect for CMD, USER, HEALTHCHECK, ENTRYPOINT). */
export function last(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1);
}

export function finalStage(dockerfile: Dockerfile): Stage {
  const stage = dockerfile.stages.at(-1);
  if (stage === undefined) throw new Error("the Dockerfile has no FROM");
  return stage;
}

/** A stage's ARG names with their defaults. */
export function stageArgs(stage: Stage): Record<string, string> {
  return Object.assign({}, ...stage.instructions.filter((i) => i.keyword === "ARG").map((i) => parseArg(i.args)));
}
