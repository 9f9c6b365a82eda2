// The operator's documents against what they describe, each a place an operator who followed the
// docs found them wrong: the production guard's settings (README, docs/container.md), the image's
// health check and contents (docs/container.md against the Dockerfile), the embedded ledger's
// JSON-RPC methods (docs/ledger.md against its method tables), `npm run example:pay`'s arguments
// (README against the script), and a runbook section for every alert (docs/runbook.md against
// deploy/observability/alerts.yaml).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { createEmbeddedLedger } from "../../packages/embedded-ledger/src/index.ts";
import { accountMethods } from "../../packages/embedded-ledger/src/json-rpc-account-methods.ts";
import { clusterMethods } from "../../packages/embedded-ledger/src/json-rpc-cluster-methods.ts";
import { transactionMethods } from "../../packages/embedded-ledger/src/json-rpc-transaction-methods.ts";
import { parseAppConfig } from "../../src/infrastructure/config/app-config.ts";
import { productionProblems } from "../../src/infrastructure/config/production-guard.ts";
import { copyArgs, execForm, finalStage, last, parseDockerfile, splitFlags } from "../container/support/dockerfile.ts";

const ROOT = resolve(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const README = read("README.md");
const CONTAINER = read("docs/container.md");
const runtime = finalStage(parseDockerfile(read("Dockerfile")));

/** The paragraph of a document that starts with `opening` (up to the next blank line). */
function paragraph(text: string, opening: string): string {
  const start = text.indexOf(opening);
  if (start < 0) throw new Error(`no paragraph starting "${opening}"`);
  const end = text.indexOf("\n\n", start);
  return text.slice(start, end < 0 ? undefined : end);
}

test("README and docs/container.md name every setting the production guard can refuse", () => {
  const parsed = parseAppConfig({ NODE_ENV: "production" });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  // Everything missing, for the role that needs the most (ROLE=all).
  const settings = productionProblems(parsed.config, {}).flatMap((problem) => problem.slice(0, problem.indexOf(":")).split(/ and | or /));
  expect(settings).toContain("AUTH_DOMAIN");
  for (const [name, text] of [["README", paragraph(README, "`NODE_ENV=production` (the container image")], ["docs/container.md", paragraph(CONTAINER, "`NODE_ENV=production` refuses")]] as const) {
    expect({ document: name, missing: settings.filter((setting) => !text.includes(`\`${setting}\``)) }).toEqual({ document: name, missing: [] });
  }
});

test("docs/container.md names the path the image's HEALTHCHECK fetches and everything the runtime stage copies in", () => {
  const command = execForm(splitFlags(last(runtime, "HEALTHCHECK")?.args ?? "").rest.replace(/^CMD\s+/, "")) ?? [];
  const path = /\/health[a-z/]*/.exec(command.join(" "))?.[0];
  expect(path).toBe("/health/live");
  const row = CONTAINER.split("\n").find((line) => line.startsWith("| health check |")) ?? "";
  expect(row).toContain(`${path}\``);
  expect(row).not.toMatch(/\/health`/);
  const copied = runtime.instructions.filter((i) => i.keyword === "COPY" && copyArgs(i.args).flags["from"] === undefined).flatMap((i) => copyArgs(i.args).sources);
  const stageRow = CONTAINER.split("\n").find((line) => line.startsWith("| `runtime` |")) ?? "";
  for (const source of copied) expect({ source, named: stageRow.includes(`\`${source.replace(/^\.\//, "")}`) }).toEqual({ source, named: true });
});

test("docs/ledger.md lists every JSON-RPC method the embedded ledger answers", () => {
  const ledger = createEmbeddedLedger();
  const methods = [...Object.keys(accountMethods(ledger)), ...Object.keys(transactionMethods(ledger)), ...Object.keys(clusterMethods(ledger))];
  expect(methods).toContain("getSignaturesForAddress");
  const text = read("docs/ledger.md");
  expect(methods.filter((method) => !text.includes(`\`${method}\``))).toEqual([]);
});

test("README gives `npm run example:pay`'s arguments as the script reads them", () => {
  const script = read("examples/pay-on-embedded-ledger.ts");
  const usage = /bun run examples\/pay-on-embedded-ledger\.ts (.+)/.exec(script)?.[1]?.trim();
  expect(usage).toBeDefined();
  expect(README).toContain(`npm run example:pay -- ${usage}`);
  const defaults = [...script.matchAll(/process\.argv\[\d\] \?\? "([^"]+)"/g)].map((m) => m[1]!);
  expect(defaults.length).toBeGreaterThan(1);
  for (const url of defaults) expect(README).toContain(`\`${url}\``);
});

test("docs/runbook.md has a section for every alert in deploy/observability/alerts.yaml, with commands", () => {
  const rules = parseYaml(read("deploy/observability/alerts.yaml")) as { spec: { groups: { rules: { alert: string }[] }[] } };
  const alerts = rules.spec.groups.flatMap((group) => group.rules.map((rule) => rule.alert));
  expect(alerts.length).toBeGreaterThan(10);
  const runbook = read("docs/runbook.md");
  const sections = runbook.split(/\n## /).slice(1);
  for (const alert of alerts) {
    const section = sections.find((s) => s.includes(`\`${alert}\``));
    expect({ alert, section: section !== undefined }).toEqual({ alert, section: true });
    // Each section says how to confirm and what to do, with something to run.
    expect({ alert, confirm: /\*\*Confirm\.\*\*/.test(section!), act: /\*\*Act[,.]/.test(section!), commands: /```(sh|sql|promql)/.test(section!) }).toEqual({ alert, confirm: true, act: true, commands: true });
  }
});
