/**
 * Renders deploy/ with the real kustomize, `kubectl kustomize` (what `kubectl apply -k` runs), and
 * reads what it prints. CI installs kubectl (.ci/run); elsewhere a missing kubectl skips the
 * deploy tests with the reason, and fails them under CI=true (fixtures/gate.ts).
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parse, parseAllDocuments } from "yaml";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type Resource = JsonObject & { apiVersion: string; kind: string; metadata: JsonObject & { name: string } };

const KUBECTL = process.env["KUBECTL"] ?? "kubectl";

/** Why `kubectl kustomize` cannot run here, or null when it can. */
export function kubectlMissing(): string | null {
  try {
    const probe = Bun.spawnSync([KUBECTL, "version", "--client"], { stdout: "pipe", stderr: "pipe" });
    return probe.exitCode === 0 ? null : `\`${KUBECTL} version --client\` exited ${probe.exitCode}`;
  } catch {
    return `${KUBECTL} is not installed (Debian: apt-get install kubectl)`;
  }
}

/** `kubectl kustomize <dir>`: every object it renders, in its order. Throws with kustomize's own error. */
export function kustomize(dir: string): Resource[] {
  const run = Bun.spawnSync([KUBECTL, "kustomize", dir], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${run.stderr.toString().trim()}`);
  return parseAllDocuments(run.stdout.toString()).map((document) => {
    if (document.errors.length > 0) throw new Error(`kubectl kustomize ${dir}: ${document.errors.map((e) => e.message).join("; ")}`);
    return document.toJS() as Resource;
  }).filter((resource) => resource !== null);
}

/**
 * A scratch copy of deploy/ to render an edited variant (an overlay with its optional components
 * uncommented, a changed setting) exactly as an operator would edit it. `edit` gets the copy's
 * root; the copy is removed after `use`.
 */
export function withEditedCopy<T>(deploy: string, edit: (root: string) => void, use: (root: string) => T): T {
  const root = mkdtempSync(join(tmpdir(), "deploy-"));
  try {
    cpSync(deploy, root, { recursive: true });
    edit(root);
    return use(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every file a kustomization under `deploy` names (resources, components, patch files, generator sources). */
export function referencedFiles(deploy: string): Set<string> {
  const named = new Set<string>();
  for (const file of filesUnder(deploy).filter((f) => f.endsWith("/kustomization.yaml"))) {
    named.add(file);
    const dir = dirname(file);
    const k = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const paths: unknown[] = [
      ...list(k["resources"]),
      ...list(k["components"]),
      ...list(k["patches"]).map((p) => (p as { path?: unknown }).path),
      ...list(k["configMapGenerator"]).flatMap((g) => [...list((g as { envs?: unknown }).envs), ...list((g as { files?: unknown }).files)]),
    ];
    for (const path of paths) {
      if (typeof path !== "string") continue;
      const target = resolve(dir, path.replace(/^[^=]*=/, ""));
      named.add(statSync(target, { throwIfNoEntry: false })?.isDirectory() ? join(target, "kustomization.yaml") : target);
    }
  }
  return named;
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
