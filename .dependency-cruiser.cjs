// The architecture rules of src/ and packages/, checked by `npm run lint:deps` and by
// tests/architecture/layer-dependencies.test.ts (which also proves each rule can fail).
// Arrows point inward: domain <- application <- adapters (http, infrastructure) <- composition roots.
// The workspace packages stand apart: the service uses them as it uses any npm package, through
// their entry point; they never reach back into the service.

/** The composition roots: src/main.ts (the process entry) and the wiring in src/composition/. */
const ROOTS = "^src/([^/]+\\.ts$|composition/)";
const OUTER_LAYERS = `^src/(application|infrastructure|http|tools)/|${ROOTS}`;
const ADAPTERS_AND_ROOTS = `^src/(infrastructure|http|tools)/|${ROOTS}`;
/**
 * Runtime-specific modules: domain and application run on Bun and on Deno, so they use
 * web-standard APIs only (Node built-ins are caught separately, by dependency type).
 */
const RUNTIME_SPECIFIC =
  "^(bun|bun:.*|pkcs11js|postgres|litesvm|ioredis|pino|elysia|@elysiajs/.*|@aws-sdk/.*|@electric-sql/.*|prom-client)$|node_modules/(pkcs11js|postgres|litesvm|ioredis|pino|elysia|@elysiajs|@aws-sdk|@electric-sql|prom-client)/|^packages/embedded-ledger/";
/** Code that must run unchanged on Bun and Deno: the core layers and the wire package they use. */
const PORTABLE = "^(src/(domain|application)|packages/solana-wire/src)/";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-is-innermost",
      comment: "src/domain imports only src/domain: no use case, adapter, composition root or tool.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: OUTER_LAYERS },
    },
    {
      name: "application-imports-inward",
      comment: "src/application imports only the domain and itself (use cases and their ports), never an adapter.",
      severity: "error",
      from: { path: "^src/application/" },
      to: { path: ADAPTERS_AND_ROOTS },
    },
    {
      name: "core-is-portable",
      comment: "src/domain, src/application and @x84/solana-wire use web-standard APIs only: no Node built-in, no runtime-specific package.",
      severity: "error",
      from: { path: PORTABLE },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "core-uses-no-runtime-package",
      comment: "src/domain, src/application and @x84/solana-wire import no Bun module and no package bound to one runtime or one I/O system (the embedded ledger is one: litesvm).",
      severity: "error",
      from: { path: PORTABLE },
      to: { path: RUNTIME_SPECIFIC },
    },
    {
      name: "http-not-infrastructure",
      comment: "src/http talks to adapters through ports handed in by the composition root, never by import.",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: "^src/infrastructure/" },
    },
    {
      name: "infrastructure-not-http",
      comment: "src/infrastructure (adapters) knows nothing of the HTTP interface.",
      severity: "error",
      from: { path: "^src/infrastructure/" },
      to: { path: "^src/http/" },
    },
    {
      name: "only-roots-import-roots",
      comment: "Composition roots wire the layers; no layer or tool imports one.",
      severity: "error",
      from: { path: "^src/(domain|application|infrastructure|http|tools)/" },
      to: { path: ROOTS },
    },
    {
      name: "payment-pipeline-is-closed",
      comment:
        "The payment pipeline (src/application/payment) is entered through verify.ts and its types (payment-deps, mode-policy, mode-table, settlement-candidate, ledger-preflight, payment-refusal, verification-caches); its checks, mode policies and helpers are its own.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/application/payment/" },
      to: { path: "^src/application/payment/(modes/|standard-|requirements\\.ts|shared-blockhash-check\\.ts|token-accounts\\.ts)" },
    },
    {
      name: "no-circular",
      comment: "No import cycle in src/ or packages/ (type-only imports count: a cycle of types is still a tangle).",
      severity: "error",
      from: { path: "^(src|packages)/" },
      to: { circular: true },
    },
    {
      name: "packages-stand-alone",
      comment: "A workspace package imports only its own files, npm packages and other workspace packages: never the service or its tests.",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^(src|tests|bench)/" },
    },
    {
      name: "solana-wire-is-a-leaf",
      comment: "@x84/solana-wire is shared by the domain and the embedded ledger, so it depends on neither.",
      severity: "error",
      from: { path: "^packages/solana-wire/" },
      to: { path: "^packages/(?!solana-wire/)" },
    },
    {
      name: "packages-through-their-entry",
      comment: "The service reaches a workspace package only through its package name (src/index.ts), never a file inside it.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^packages/[^/]+/", pathNot: "^packages/[^/]+/src/index\\.ts$" },
    },
    {
      name: "no-unresolvable",
      comment: "Every import in src/ and packages/ resolves (guards against a rule that silently sees nothing).",
      severity: "error",
      from: { path: "^(src|packages)/" },
      to: { couldNotResolve: true, pathNot: "^(bun|bun:.*)$" },
    },
  ],
  options: {
    // Cruise src/ and packages/; npm packages are leaves (their insides are not ours to check).
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^tests/architecture/fixtures/" },
    // Type-only imports are dependencies too: `import type` across layers is still an arrow.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // The workspace packages (packages/*) are reached through their package.json `exports`.
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    moduleSystems: ["es6", "cjs"],
    reporterOptions: { text: { highlightFocused: true } },
  },
};
