/**
 * The part of `kustomize build` that deploy/ uses, and nothing more, so tests can check the
 * manifests each overlay really produces without the kustomize binary:
 * - a kustomization lists `resources` (YAML files, or directories holding a kustomization.yaml)
 *   and `patches`, each a file of RFC 6902 JSON-patch operations with a `target` naming one
 *   resource by kind and name;
 * - JSON patch is implemented to the RFC (add, remove, replace, test) because its semantics are
 *   exact and small; strategic-merge patches (merge keys per field, directives) are not, and a
 *   kustomization that uses one, or any other kustomization field, is refused here rather than
 *   built differently from kustomize.
 * YAML is read as YAML 1.1, as kubectl reads it (`yes` is a boolean, `0440` is octal).
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type Resource = JsonObject & { apiVersion: string; kind: string; metadata: JsonObject & { name: string } };

export type Build = Readonly<{ resources: readonly Resource[]; files: ReadonlySet<string> }>;

type PatchOperation = Readonly<{ op: "add" | "remove" | "replace" | "test"; path: string; value?: Json }>;

const KUSTOMIZATION_FIELDS = new Set(["apiVersion", "kind", "resources", "patches"]);
const PATCH_FIELDS = new Set(["path", "target"]);
const TARGET_FIELDS = new Set(["kind", "name"]);
/** kustomize reads a target's name as an anchored regular expression: plain names mean themselves. */
const PLAIN_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function readYamlDocuments(file: string): Json[] {
  const documents = parseAllDocuments(readFileSync(file, "utf8"), { version: "1.1" });
  const list = Array.isArray(documents) ? documents : [documents];
  return list.map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((e) => e.message).join("; ")}`);
    return document.toJS() as Json;
  }).filter((value) => value !== null);
}

/** `kustomize build <dir>` for the subset above. */
export function buildKustomization(dir: string): Build {
  const files = new Set<string>();
  const resources = build(resolve(dir), files);
  return { resources, files };
}

function build(dir: string, files: Set<string>): Resource[] {
  const file = join(dir, "kustomization.yaml");
  files.add(file);
  const [kustomization, ...extra] = readYamlDocuments(file);
  if (!isObject(kustomization) || extra.length > 0) throw new Error(`${file}: expected one Kustomization document`);
  if (kustomization["apiVersion"] !== "kustomize.config.k8s.io/v1beta1" || kustomization["kind"] !== "Kustomization") {
    throw new Error(`${file}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }
  for (const field of Object.keys(kustomization)) {
    if (!KUSTOMIZATION_FIELDS.has(field)) throw new Error(`${file}: "${field}" is not implemented by this kustomize subset`);
  }

  const resources: Resource[] = [];
  for (const entry of stringList(kustomization["resources"], `${file}: resources`)) {
    const path = resolve(dir, entry);
    const loaded = statSync(path).isDirectory() ? build(path, files) : readResources(path, files);
    for (const resource of loaded) {
      if (resources.some((r) => r.kind === resource.kind && r.metadata.name === resource.metadata.name)) {
        throw new Error(`${path}: ${resource.kind}/${resource.metadata.name} is defined twice`);
      }
      resources.push(resource);
    }
  }

  for (const patch of list(kustomization["patches"] ?? [], `${file}: patches`)) {
    if (!isObject(patch)) throw new Error(`${file}: a patch must be an object`);
    for (const field of Object.keys(patch)) if (!PATCH_FIELDS.has(field)) throw new Error(`${file}: patch field "${field}" is not implemented`);
    const target = patch["target"];
    if (!isObject(target)) throw new Error(`${file}: every patch needs a target`);
    for (const field of Object.keys(target)) if (!TARGET_FIELDS.has(field)) throw new Error(`${file}: target field "${field}" is not implemented`);
    const { kind, name } = target;
    if (typeof kind !== "string" || typeof name !== "string" || !PLAIN_NAME.test(name)) throw new Error(`${file}: a target names one kind and one plain name`);
    if (typeof patch["path"] !== "string") throw new Error(`${file}: a patch must be a file (path)`);
    const patchFile = resolve(dir, patch["path"]);
    files.add(patchFile);
    const operations = readPatchOperations(patchFile);
    const index = resources.findIndex((r) => r.kind === kind && r.metadata.name === name);
    if (index < 0) throw new Error(`${patchFile}: target ${kind}/${name} matches no resource`);
    resources[index] = asResource(applyJsonPatch(resources[index]!, operations), patchFile);
  }
  return resources;
}

function readResources(file: string, files: Set<string>): Resource[] {
  files.add(file);
  return readYamlDocuments(file).map((document) => asResource(document, file));
}

function readPatchOperations(file: string): PatchOperation[] {
  const [document, ...extra] = readYamlDocuments(file);
  if (!Array.isArray(document) || extra.length > 0) {
    throw new Error(`${file}: only JSON patches (a list of operations) are implemented, not strategic-merge patches`);
  }
  return document.map((operation) => {
    if (!isObject(operation)) throw new Error(`${file}: an operation must be an object`);
    const { op, path } = operation;
    if (op !== "add" && op !== "remove" && op !== "replace" && op !== "test") throw new Error(`${file}: operation "${String(op)}" is not implemented`);
    if (typeof path !== "string") throw new Error(`${file}: an operation needs a path`);
    if (op !== "remove" && !("value" in operation)) throw new Error(`${file}: ${op} ${path} needs a value`);
    return op === "remove" ? { op, path } : { op, path, value: operation["value"]! };
  });
}

/** RFC 6902 on a copy of `document`; any operation that cannot apply throws, as kustomize does. */
export function applyJsonPatch(document: Json, operations: readonly PatchOperation[]): Json {
  let root = structuredClone(document);
  for (const operation of operations) {
    const tokens = pointerTokens(operation.path);
    const value = operation.value === undefined ? undefined : structuredClone(operation.value);
    if (tokens.length === 0) {
      if (operation.op === "test") {
        if (!jsonEqual(root, value ?? null)) throw new Error(`test failed at ""`);
      } else if (operation.op === "remove") throw new Error("cannot remove the document");
      else root = value ?? null;
      continue;
    }
    const parent = resolvePointer(root, tokens.slice(0, -1), operation.path);
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) {
      const index = last === "-" && operation.op === "add" ? parent.length : arrayIndex(last, operation.path);
      const bound = operation.op === "add" ? parent.length : parent.length - 1;
      if (index > bound) throw new Error(`${operation.op} ${operation.path}: index out of range`);
      if (operation.op === "add") parent.splice(index, 0, value!);
      else if (operation.op === "remove") parent.splice(index, 1);
      else if (operation.op === "replace") parent[index] = value!;
      else if (!jsonEqual(parent[index]!, value!)) throw new Error(`test failed at ${operation.path}: found ${JSON.stringify(parent[index])}`);
    } else if (isObject(parent)) {
      const exists = Object.hasOwn(parent, last);
      if (operation.op !== "add" && !exists) throw new Error(`${operation.op} ${operation.path}: no such member`);
      if (operation.op === "add" || operation.op === "replace") parent[last] = value!;
      else if (operation.op === "remove") delete parent[last];
      else if (!jsonEqual(parent[last]!, value!)) throw new Error(`test failed at ${operation.path}: found ${JSON.stringify(parent[last])}`);
    } else {
      throw new Error(`${operation.op} ${operation.path}: the parent is not a container`);
    }
  }
  return root;
}

function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`"${pointer}" is not a JSON pointer`);
  return pointer.slice(1).split("/").map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function resolvePointer(root: Json, tokens: readonly string[], pointer: string): Json {
  let node = root;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      const index = arrayIndex(token, pointer);
      if (index >= node.length) throw new Error(`${pointer}: index ${index} out of range`);
      node = node[index]!;
    } else if (isObject(node) && Object.hasOwn(node, token)) {
      node = node[token]!;
    } else {
      throw new Error(`${pointer}: "${token}" does not exist`);
    }
  }
  return node;
}

function arrayIndex(token: string, pointer: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`${pointer}: "${token}" is not an array index`);
  return Number(token);
}

function jsonEqual(a: Json, b: Json): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]!));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key]!, b[key]!));
  }
  return a === b;
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asResource(value: Json, file: string): Resource {
  if (!isObject(value) || typeof value["apiVersion"] !== "string" || typeof value["kind"] !== "string") {
    throw new Error(`${file}: a resource needs apiVersion and kind`);
  }
  const metadata = value["metadata"];
  if (!isObject(metadata) || typeof metadata["name"] !== "string") throw new Error(`${file}: ${value["kind"]} needs metadata.name`);
  return value as Resource;
}

function list(value: Json | undefined, what: string): Json[] {
  if (!Array.isArray(value)) throw new Error(`${what} must be a list`);
  return value;
}

function stringList(value: Json | undefined, what: string): string[] {
  return list(value, what).map((item) => {
    if (typeof item !== "string") throw new Error(`${what} must list paths`);
    return item;
  });
}
