import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  copyArgs,
  execForm,
  finalStage,
  last,
  parseDockerfile,
  splitFlags,
  stageArgs,
  stageEnv,
} from "./support/dockerfile.ts";
import { parseDockerIgnore } from "./support/dockerignore.ts";

/**
 * Dockerfile invariants (parsed, no engine): there is no Docker engine on the machines that run
 * this suite, so the Dockerfile and .dockerignore are read as text and checked against the
 * repository. tests/container/install-replay.test.ts replays the install and runs the result.
 */
const ROOT = resolve(import.meta.dir, "../..");
const dockerfile = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const ignore = parseDockerIgnore(readFileSync(join(ROOT, ".dockerignore"), "utf8"));
const runtime = finalStage(dockerfile);
const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};

/** The Kubernetes Deployments under deploy/ (wherever kustomize layout puts them), as text. */
function deployments(): { path: string; text: string }[] {
  const found = readdirSync(join(ROOT, "deploy"), { recursive: true, encoding: "utf8" })
    .filter((path) => /\.ya?ml$/.test(path))
    .map((path) => ({ path, text: readFileSync(join(ROOT, "deploy", path), "utf8") }))
    .filter((manifest) => /^kind: Deployment$/m.test(manifest.text));
  if (found.length === 0) throw new Error("no Deployment manifest under deploy/");
  return found;
}

describe("Dockerfile invariants (parsed, no engine)", () => {
  test("the final stage runs as a numeric non-root user, the uid the Deployments under deploy/ run as", () => {
    const user = last(runtime, "USER")?.args ?? "";
    const [uid = "", gid = ""] = user.split(":");
    expect(uid).toMatch(/^[1-9][0-9]*$/);
    expect(gid === "" || gid !== "0").toBe(true);
    for (const manifest of deployments()) {
      expect({ manifest: manifest.path, runAsUser: /runAsUser: (\d+)/.exec(manifest.text)?.[1] }).toEqual({ manifest: manifest.path, runAsUser: uid });
    }
  });

  test("the final stage has a HEALTHCHECK whose command is exec form", () => {
    const healthcheck = last(runtime, "HEALTHCHECK")?.args ?? "";
    const { rest } = splitFlags(healthcheck);
    expect(rest.startsWith("CMD ")).toBe(true);
    const command = execForm(rest.slice("CMD ".length).trim());
    expect(command?.[0]).toBe("bun");
  });

  test("CMD and ENTRYPOINT are exec form (Bun receives SIGTERM itself) and CMD runs src/main.ts", () => {
    const entrypoint = last(runtime, "ENTRYPOINT");
    if (entrypoint !== undefined) expect(execForm(entrypoint.args)).not.toBeNull();
    const cmd = execForm(last(runtime, "CMD")?.args ?? "");
    expect(cmd).toEqual(["bun", "src/main.ts"]);
    expect(existsSync(join(ROOT, "src/main.ts"))).toBe(true);
  });

  test("NODE_ENV=production, HOST=0.0.0.0 and DATA_DIR (the path the Deployments mount) are set in the image", () => {
    const env = stageEnv(runtime);
    expect(env["NODE_ENV"]).toBe("production");
    expect(env["HOST"]).toBe("0.0.0.0");
    for (const manifest of deployments()) {
      expect({ manifest: manifest.path, mounts: manifest.text.includes(`mountPath: ${env["DATA_DIR"]}`) }).toEqual({ manifest: manifest.path, mounts: true });
    }
  });

  test("the runtime is the official Bun image pinned to the exact Bun the tests run with", () => {
    expect(runtime.from).toMatch(/^oven\/bun:\d+\.\d+\.\d+-debian(@sha256:[0-9a-f]{64})?$/);
    expect(runtime.from).toContain(`oven/bun:${packageJson.devDependencies["bun"]}-`);
    for (const stage of dockerfile.stages) expect(stage.from).toMatch(/:[0-9][^:@]*(@sha256:[0-9a-f]{64})?$/);
  });

  test("dependencies are installed from the lock file, production only, with the addon built against Node headers", () => {
    const deps = dockerfile.stages.find((stage) => stage.name === "deps");
    const runs = deps?.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args) ?? [];
    expect(runs.some((run) => /\bnpm ci --omit=dev\b/.test(run))).toBe(true);
    expect(stageEnv(deps ?? runtime)["npm_config_nodedir"]).toBeDefined();
    const fromDeps = runtime.instructions.filter((i) => i.keyword === "COPY" && copyArgs(i.args).flags["from"] === "deps");
    expect(fromDeps.map((i) => copyArgs(i.args).sources)).toEqual([["/app/node_modules"]]);
  });

  test("WITH_SOFTHSM is a build argument of the runtime stage, false by default", () => {
    expect(stageArgs(runtime)["WITH_SOFTHSM"]).toBe("false");
  });

  test("every path the Dockerfile copies from the build context exists in the repository and is not excluded by .dockerignore", () => {
    const copies = dockerfile.stages.flatMap((stage) =>
      stage.instructions.filter((i) => (i.keyword === "COPY" || i.keyword === "ADD") && copyArgs(i.args).flags["from"] === undefined),
    );
    const sources = copies.flatMap((i) => copyArgs(i.args).sources);
    expect(sources.sort()).toEqual([
      "package-lock.json",
      "package.json",
      "package.json",
      "packages",
      "packages/embedded-ledger/package.json",
      "packages/solana-wire/package.json",
      "src",
      "tsconfig.json",
    ]);
    const context = ignore.contextFiles(ROOT);
    for (const source of sources) {
      expect(existsSync(join(ROOT, source))).toBe(true);
      const directory = statSync(join(ROOT, source)).isDirectory();
      // A directory may be excluded itself and sent in part (packages: only manifests and sources).
      if (!directory) expect(ignore.excludes(source)).toBe(false);
      const sent = directory ? context.filter((file) => file.startsWith(`${source}/`)) : context.filter((file) => file === source);
      expect(sent.length).toBeGreaterThan(0);
    }
  });

  test("the build context .dockerignore leaves is exactly the copied paths: no keys, .env, .data, node_modules, .git, tests or bench", () => {
    const context = ignore.contextFiles(ROOT);
    const packageFile = /^packages\/[^/]+\/(package\.json$|src\/)/;
    const outside = context.filter((file) => !["package.json", "package-lock.json", "tsconfig.json"].includes(file) && !file.startsWith("src/") && !packageFile.test(file));
    expect(outside).toEqual([]);
    // Every workspace package reaches the image, without its tests.
    expect(context).toContain("packages/embedded-ledger/src/index.ts");
    expect(context).toContain("packages/solana-wire/src/index.ts");
    expect(context.some((file) => file.includes("/tests/"))).toBe(false);
    for (const secretish of [
      ".data/fee-payer.json",
      ".data/config-authority.json",
      ".data/pglite/base/1/1259",
      ".env",
      ".env.production",
      "src/.env",
      "src/.env.local",
      "src/infrastructure/.data/fee-payer.json",
      "src/fee-payer.json",
      "src/keys/devnet-keypair.json",
      "src/keys/server.pem",
      "src/keys/hsm.key",
      "src/node_modules/x/index.js",
      "node_modules/pkcs11js/build/Release/pkcs11.node",
      ".git/config",
      "coverage/lcov.info",
      "bench/results.json",
      "tests/container/dockerfile.test.ts",
      "deploy/config.yaml",
      "fee-payer.json",
    ]) {
      expect({ path: secretish, excluded: ignore.excludes(secretish) }).toEqual({ path: secretish, excluded: true });
    }
  });
});

describe(".dockerignore matcher semantics (moby/patternmatcher rules the invariants rely on)", () => {
  test("last match wins over a path and its parents; * stays in a segment; ** spans segments", () => {
    const rules = parseDockerIgnore("*\n!src/\nsrc/secret\n**/*.pem\n!src/public.pem\n");
    expect(rules.excludes("README.md")).toBe(true);
    expect(rules.excludes("src/main.ts")).toBe(false);
    expect(rules.excludes("src/secret/key.json")).toBe(true);
    expect(rules.excludes("src/a/b/c.pem")).toBe(true);
    expect(rules.excludes("src/public.pem")).toBe(false);
    expect(rules.excludes("docs/a.md")).toBe(true);
    const star = parseDockerIgnore("src/*.json\n");
    expect(star.excludes("src/a.json")).toBe(true);
    expect(star.excludes("src/deep/a.json")).toBe(false);
  });
});
