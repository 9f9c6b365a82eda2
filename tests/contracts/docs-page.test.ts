/**
 * GET /docs renders in a real browser: Debian's chromium (headless, driven over the DevTools
 * protocol by playwright-core, which downloads no browser) loads the page from the real service
 * served by Bun.serve on port 0, Swagger UI draws every documented operation of the interface, and
 * every request the page makes goes to the service itself: the UI's script and stylesheet come from
 * node_modules through /docs/assets, never from a CDN. A full-page screenshot of each interface is
 * written to a temporary directory (its path is printed), after the routes are drawn: Swagger UI
 * renders from script, so a screenshot taken at page load (`chromium --headless --screenshot`
 * without `--virtual-time-budget`) shows only its spinner. Each page is loaded twice: at the root,
 * and behind a path prefix (`/registry/docs`, as an ingress with a rewrite serves it), where
 * asset paths must be relative to the page.
 *
 * Without chromium (`apt-get install -y chromium`) the test is skipped with that reason; under
 * CI=true it fails instead (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import type { TestService } from "../settlement/support/service-harness.ts";
import { type App, type Json, documentOf, operationsOf } from "./support/contract.ts";
import { startContractService } from "./support/contract-service.ts";
import { failWhenRequired, gateOn } from "../../fixtures/gate.ts";

const CHROMIUM = "/usr/bin/chromium";
const gate = gateOn("tests/contracts", "the /docs browser test", existsSync(CHROMIUM) ? null : `${CHROMIUM} not found (apt-get install -y chromium)`);
const available = gate.run;

/** The launch flags known to work in this environment (no sandbox in containers, no network chatter). */
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

describe("GET /docs in headless Chromium", () => {
  if (gate.failInCi !== null) {
    failWhenRequired(gate, "chromium is installed (CI requires it)");
    return;
  }

  let service: TestService;
  let context: BrowserContext;
  let profile: string;
  const shots = mkdtempSync(join(tmpdir(), "docs-page-"));

  beforeAll(async () => {
    if (!available) return;
    service = await startContractService();
    profile = mkdtempSync(join(tmpdir(), "chromium-profile-"));
    // A fresh --user-data-dir: playwright passes it for a persistent context.
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    if (!available) return;
    await context?.close();
    await service?.dispose();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const placements = [
    ["facilitator", ""],
    ["registry", ""],
    ["facilitator", "/facilitator"],
    ["registry", "/registry"],
  ] as const;
  for (const [name, prefix] of placements) {
    test.skipIf(!available)(`the ${name} page${prefix ? ` behind the path prefix ${prefix}` : ""} lists every documented route, from the service alone`, async () => {
      const app = (name === "facilitator" ? service.facilitatorApp : service.registryApp) as App;
      // With a prefix: what an ingress with a rewrite does, and nothing outside it is served.
      const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => {
        const url = new URL(request.url);
        if (!url.pathname.startsWith(`${prefix}/`)) return new Response("not under the prefix", { status: 404 });
        url.pathname = url.pathname.slice(prefix.length);
        return app.handle(new Request(url, request));
      } });
      const origin = `http://127.0.0.1:${server.port}${prefix}`;
      const page = await context.newPage();
      const requested: string[] = [];
      page.on("request", (request) => void requested.push(request.url()));
      try {
        const spec = await documentOf(app);
        const operations = operationsOf(spec);
        await page.goto(`${origin}/docs`, { waitUntil: "networkidle" });
        await page.locator(".opblock").nth(operations.length - 1).waitFor({ timeout: 20_000 });

        const listed = await page.$$eval(".opblock", (blocks) =>
          blocks.map((block) => {
            const method = block.querySelector(".opblock-summary-method")?.textContent?.trim() ?? "";
            const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "";
            return `${method} ${path}`;
          }),
        );
        expect(listed.sort()).toEqual(operations.map((op) => `${op.method} ${op.path}`).sort());
        const info = spec["info"] as Json;
        const title = await page.textContent(".info .title");
        expect(title).toContain(String(info["title"]));
        expect(title).toContain(String(info["version"]));

        // The page also shows the schemas' examples: open the first POST operation (or the first one).
        const first = operations.find((op) => op.method === "POST") ?? operations[0];
        const block = page.locator(`#operations-${(first?.operation["tags"] as string[])[0]}-${String(first?.operation["operationId"])}`);
        await block.locator(".opblock-summary-control").click();
        await block.locator(".response-col_description").first().waitFor({ timeout: 10_000 });

        const shot = join(shots, `${name}${prefix.replaceAll("/", "-")}-docs.png`);
        await page.screenshot({ path: shot, fullPage: true });
        console.log(`[tests/contracts] ${name} /docs screenshot: ${shot}`);

        const foreign = requested.filter((url) => !url.startsWith(`${origin}/`));
        expect(foreign).toEqual([]);
        expect(requested).toContain(`${origin}/docs/assets/swagger-ui-bundle.js`);
        expect(requested).toContain(`${origin}/openapi`);
      } finally {
        await page.close();
        server.stop(true);
      }
    }, 60_000);
  }
});
