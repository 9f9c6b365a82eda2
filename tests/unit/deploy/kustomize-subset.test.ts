// The kustomize subset that builds deploy/ in tests must apply JSON patches exactly as RFC 6902
// says (kustomize uses an RFC implementation), and refuse what it does not implement instead of
// building something kustomize would not.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Json, applyJsonPatch, buildKustomization } from "../../deploy/kustomize-subset.ts";

describe("applyJsonPatch (RFC 6902)", () => {
  const doc: Json = { foo: ["bar", "baz"], nested: { "a/b": 1, "m~n": 2 } };

  test("add: a member, an array insertion by index, an append with -", () => {
    expect(applyJsonPatch(doc, [{ op: "add", path: "/baz", value: "qux" }])).toMatchObject({ baz: "qux" });
    expect(applyJsonPatch(doc, [{ op: "add", path: "/foo/1", value: "qux" }])).toMatchObject({ foo: ["bar", "qux", "baz"] });
    expect(applyJsonPatch(doc, [{ op: "add", path: "/foo/-", value: "qux" }])).toMatchObject({ foo: ["bar", "baz", "qux"] });
  });

  test("add on an existing member replaces it (RFC 6902 §4.1)", () => {
    expect(applyJsonPatch(doc, [{ op: "add", path: "/foo", value: [] }])).toMatchObject({ foo: [] });
  });

  test("~1 and ~0 escapes in a pointer", () => {
    expect(applyJsonPatch(doc, [{ op: "replace", path: "/nested/a~1b", value: 3 }, { op: "remove", path: "/nested/m~0n" }])).toEqual({ foo: ["bar", "baz"], nested: { "a/b": 3 } });
  });

  test("the input is not modified", () => {
    applyJsonPatch(doc, [{ op: "add", path: "/foo/-", value: "x" }]);
    expect(doc).toEqual({ foo: ["bar", "baz"], nested: { "a/b": 1, "m~n": 2 } });
  });

  test.each([
    ["add under a missing parent", { op: "add", path: "/missing/child", value: 1 }],
    ["add past the end of an array", { op: "add", path: "/foo/3", value: 1 }],
    ["replace a missing member", { op: "replace", path: "/missing", value: 1 }],
    ["remove a missing index", { op: "remove", path: "/foo/2" }],
    ["an index with a leading zero", { op: "replace", path: "/foo/01", value: 1 }],
    ["a failed test", { op: "test", path: "/foo/0", value: "baz" }],
  ] as const)("refused: %s", (_, operation) => {
    expect(() => applyJsonPatch(doc, [operation])).toThrow();
  });

  test("test compares JSON values deeply", () => {
    expect(() => applyJsonPatch(doc, [{ op: "test", path: "/nested", value: { "m~n": 2, "a/b": 1 } }])).not.toThrow();
  });
});

describe("buildKustomization refuses what it does not implement", () => {
  function tree(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), "kustomize-subset-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }
  const header = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n";
  const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\ndata: { A: b }\n";

  test("a JSON patch applies to its target; resources from a directory come through", () => {
    const dir = tree({
      "base/kustomization.yaml": `${header}resources: [map.yaml]\n`,
      "base/map.yaml": configMap,
      "overlay/kustomization.yaml": `${header}resources: [../base]\npatches:\n  - path: p.yaml\n    target: { kind: ConfigMap, name: settings }\n`,
      "overlay/p.yaml": "- { op: add, path: /data/C, value: d }\n",
    });
    try {
      expect(buildKustomization(join(dir, "overlay")).resources).toEqual([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { A: "b", C: "d" } }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each([
    ["a strategic-merge patch", `${header}resources: [map.yaml]\npatches:\n  - path: p.yaml\n    target: { kind: ConfigMap, name: settings }\n`, "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\n", /strategic-merge/],
    ["an unimplemented field", `${header}resources: [map.yaml]\nnamePrefix: x-\n`, "", /namePrefix/],
    ["a target that matches nothing", `${header}resources: [map.yaml]\npatches:\n  - path: p.yaml\n    target: { kind: ConfigMap, name: other }\n`, "- { op: add, path: /data/C, value: d }\n", /matches no resource/],
    ["a regular-expression target", `${header}resources: [map.yaml]\npatches:\n  - path: p.yaml\n    target: { kind: ConfigMap, name: "set.*" }\n`, "- { op: add, path: /data/C, value: d }\n", /plain name/],
    ["a resource defined twice", `${header}resources: [map.yaml, map.yaml]\n`, "", /defined twice/],
  ])("%s", (_, kustomization, patch, message) => {
    const dir = tree({ "kustomization.yaml": kustomization, "map.yaml": configMap, "p.yaml": patch || "[]\n" });
    try {
      expect(() => buildKustomization(dir)).toThrow(message);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("YAML is read as YAML 1.1, as kubectl reads it: a leading-zero mode is octal", () => {
    const dir = tree({ "kustomization.yaml": `${header}resources: [map.yaml]\n`, "map.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\nmode: 0440\n" });
    try {
      expect(buildKustomization(dir).resources[0]?.["mode"]).toBe(0o440);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
