// Every manifest under deploy/ rendered with the real kustomize (`kubectl kustomize`, what
// `kubectl apply -k` runs): the base, both overlays as shipped and with every optional component
// switched on, and the migration Job. Each rendered object is validated against the Kubernetes
// schemas with kubernetes-models, and the production invariants are asserted on what really
// renders: no Secret ever rendered, config changes that roll the pods, probes, pod security,
// shutdown timing, the signer check, the migration Job and its role, capacity arithmetic,
// conventions, network policy, and settings the service itself accepts in production.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { IContainer } from "kubernetes-models/v1/Container";
import type { IPodSpec } from "kubernetes-models/v1/PodSpec";
import { parse as parseYaml } from "yaml";
import { PROBE_TIMEOUT_MS } from "../../src/application/health.ts";
import { adminPortOf, parseAppConfig } from "../../src/infrastructure/config/app-config.ts";
import { productionProblems } from "../../src/infrastructure/config/production-guard.ts";
import { SETTLEMENTS_IN_FLIGHT } from "../../src/infrastructure/metrics/instrumented-settlement.ts";
import { pinRejectionDirectory } from "../../src/infrastructure/signers/pin-rejections.ts";
import { parseSignerConfigs } from "../../src/infrastructure/signers/parse-signer-configs.ts";
import { failWhenRequired, gateOn } from "../../fixtures/gate.ts";
import { readDocumentedSecrets } from "./documented-secrets.ts";
import { filesUnder, kubectlMissing, kustomize, referencedFiles, type Resource, withEditedCopy } from "./kustomize.ts";
import {
  allContainersOf,
  effectiveEnv,
  find,
  imageEnv,
  mainContainerOf,
  mountedFile,
  nameOf,
  podSpecOf,
  podTemplatesOf,
  preStopSeconds,
  type Rendered,
  render,
  selectorSelects,
  selects,
  validateAgainstSchema,
} from "./rendered.ts";

const ROOT = resolve(import.meta.dir, "../..");
const DEPLOY = join(ROOT, "deploy");
// deploy/observability/ holds monitoring files (alert rules, dashboard, PodMonitor) applied on their
// own; it is not part of the kustomize tree (its labels are checked at the end of this file).
const OBSERVABILITY = join(DEPLOY, "observability");
const OVERLAYS = ["hsm", "kms"] as const;
const OPTIONAL_COMPONENTS = ["ingress", "autoscale-in-flight", "migrate"] as const;
const IMAGE_ENV = imageEnv(join(ROOT, "Dockerfile"));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const SECRETS = readDocumentedSecrets(join(ROOT, "docs/deploy.md"));
const SIGNER_CHECK = ["bun", "src/tools/signer-check.ts"];
const MIGRATE = ["bun", "src/tools/migrate.ts"];
const APP = "agent-registry-facilitator";
const SIGNER_PREFIX = { facilitator: "FEE_PAYER_", registry: "CONFIG_AUTHORITY_" } as const;

// The PostgreSQL connection arithmetic of docs/deploy.md, "Capacity": change one, change both.
/** PostgreSQL's default max_connections and superuser_reserved_connections. */
const POSTGRES_MAX_CONNECTIONS = 100;
const POSTGRES_SUPERUSER_RESERVED = 3;
/** Kept free for people and tools: psql, a metrics exporter, a backup. */
const OPERATOR_HEADROOM = 5;
/** A pod whose connection was lost opens a fresh pool while the old one drains (up to 1 s): two pools. */
const POOLS_PER_POD_AT_RECONNECT = 2;
/** The migration Job (one connection) and one config-check run beside the rollout. */
const CHECK_CONNECTIONS = 2;
/** Peak RSS of the registry at 100,000 agents under churn, ledger out of process (docs/performance.md, fourth session): 1,101 MB. */
const REGISTRY_MEASURED_PEAK_BYTES = 1101e6;

const noFiles = (path: string): string => {
  throw new Error(`unexpected read of ${path}`);
};

const gate = gateOn("deploy", "manifest tests (they render deploy/ with `kubectl kustomize`)", kubectlMissing());
failWhenRequired(gate, "kubectl is installed, so deploy/ renders with the real kustomize");

/** An overlay with the optional components uncommented, as docs/deploy.md tells an operator to do. */
function withOptionalComponents(root: string, overlay: string): void {
  const file = join(root, "overlays", overlay, "kustomization.yaml");
  const text = readFileSync(file, "utf8");
  let edited = text;
  for (const component of OPTIONAL_COMPONENTS) edited = edited.replace(`# - ../../components/${component} `, `- ../../components/${component} `);
  if (edited === text) throw new Error(`${file}: no commented optional component found`);
  writeFileSync(file, edited);
}

type Renders = Readonly<Record<string, Rendered>>;

function renderAll(): Renders {
  const renders: Record<string, Rendered> = {
    base: render(kustomize(join(DEPLOY, "base")), SECRETS),
    migrate: render(kustomize(join(DEPLOY, "migrate")), SECRETS),
  };
  for (const overlay of OVERLAYS) {
    renders[overlay] = render(kustomize(join(DEPLOY, "overlays", overlay)), SECRETS);
    renders[`${overlay}+components`] = withEditedCopy(DEPLOY, (root) => withOptionalComponents(root, overlay), (root) => render(kustomize(join(root, "overlays", overlay)), SECRETS));
  }
  return renders;
}

describe.if(gate.run)("deploy/ rendered with kubectl kustomize", () => {
  const renders = renderAll();
  const deployable = [...OVERLAYS, ...OVERLAYS.map((o) => `${o}+components`)];

  test("every file under deploy/ (but observability/) is named by a kustomization: no manifest escapes these tests", () => {
    const named = referencedFiles(DEPLOY);
    const files = filesUnder(DEPLOY).filter((file) => !file.startsWith(`${OBSERVABILITY}/`));
    expect(files.length).toBeGreaterThan(15);
    expect(files.filter((file) => !named.has(file))).toEqual([]);
  });

  test("the schema check is live: kubernetes-models rejects a wrong type", async () => {
    const broken = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, spec: { selector: {}, template: { spec: { containers: [{ name: "x", ports: [{ containerPort: "http" }] }] } } } };
    await expect(validateAgainstSchema(broken as unknown as Resource)).rejects.toThrow(/containerPort must be integer/);
  });

  describe.each(Object.keys(renders))("deploy/%s renders resources the Kubernetes schemas accept", (name) => {
    const { all } = renders[name]!;
    test.each(all.map((r) => [`${r.kind}/${r.metadata.name}`, r] as const))("%s", async (_, resource) => {
      await validateAgainstSchema(resource);
    });
  });

  test("no Secret is rendered anywhere: an apply never overwrites the operator's credentials", () => {
    for (const [name, rendered] of Object.entries(renders)) expect({ name, secrets: rendered.all.filter((r) => r.kind === "Secret").map(nameOf) }).toEqual({ name, secrets: [] });
  });

  test("every Secret a pod reads is one docs/deploy.md creates, with the keys the pod reads; every documented Secret is used", () => {
    const used = new Set<string>();
    for (const rendered of Object.values(renders)) {
      for (const { spec } of podTemplatesOf(rendered)) {
        for (const container of allContainersOf(spec)) for (const source of container.envFrom ?? []) if (source.secretRef) used.add(source.secretRef.name ?? "");
        for (const volume of spec.volumes ?? []) if (volume.secret) used.add(volume.secret.secretName ?? "");
      }
    }
    expect([...used].filter((name) => SECRETS[name] === undefined)).toEqual([]);
    expect(Object.keys(SECRETS).filter((name) => !used.has(name))).toEqual([]);
  });

  test("ConfigMaps are generated with a content hash, and changing a setting changes both pod templates (the pods roll)", () => {
    const templates = (rendered: Rendered) => rendered.deployments.map((d) => JSON.stringify(d.spec?.template));
    const before = templates(renders["kms"]!);
    for (const configMap of renders["kms"]!.configMaps) expect(nameOf(configMap)).toMatch(/-[a-z0-9]{10}$/);
    const after = withEditedCopy(DEPLOY, (root) => {
      const file = join(root, "base/facilitator-config.env");
      writeFileSync(file, readFileSync(file, "utf8").replace("LOG_LEVEL=info", "LOG_LEVEL=debug"));
    }, (root) => templates(render(kustomize(join(root, "overlays/kms")), SECRETS)));
    expect(after.length).toBe(2);
    after.forEach((template, i) => expect(template).not.toBe(before[i]));
  });

  test("the base registry has no init containers (the hsm overlay adds the whole list)", () => {
    const registry = find(renders["base"]!.deployments, "registry", "Deployment");
    expect(podSpecOf(registry).initContainers).toBeUndefined();
  });

  test("conventions: every object carries the app.kubernetes.io labels of this release, and selectors use name and component", () => {
    for (const name of [...deployable, "migrate"]) {
      for (const resource of renders[name]!.all) {
        const labels = (resource.metadata["labels"] ?? {}) as Record<string, string>;
        expect({ resource: `${name} ${resource.kind}/${resource.metadata.name}`, labels }).toMatchObject({
          labels: { "app.kubernetes.io/part-of": APP, "app.kubernetes.io/managed-by": "kustomize", "app.kubernetes.io/version": VERSION },
        });
        if (resource.kind !== "ConfigMap") expect(labels["app.kubernetes.io/name"]).toBe(APP);
      }
      for (const pod of podTemplatesOf(renders[name]!)) {
        expect(pod.labels["app.kubernetes.io/version"]).toBe(VERSION);
        expect(pod.labels["app.kubernetes.io/component"]).toBe(pod.name.replace(/^facilitator-/, ""));
      }
      for (const deployment of renders[name]!.deployments) {
        expect(deployment.spec?.selector.matchLabels).toEqual({ "app.kubernetes.io/name": APP, "app.kubernetes.io/component": nameOf(deployment) });
      }
    }
  });

  test("every container running the service's image runs the release's image (tag = package.json version), the same in the migration Job", () => {
    const images = new Set<string>();
    for (const name of [...deployable, "migrate"]) {
      for (const { spec } of podTemplatesOf(renders[name]!)) {
        for (const container of allContainersOf(spec).filter((c) => !c.image?.includes("hsm-vendor"))) images.add(container.image ?? "");
      }
    }
    expect([...images]).toEqual([`ghcr.io/example/${APP}:${VERSION}`]);
  });

  describe.each(deployable)("deploy/overlays/%s", (overlay) => {
    const rendered = renders[overlay]!;
    const { deployments } = rendered;
    const each = deployments.map((d) => [nameOf(d), d] as const);
    const envOf = (container: IContainer) => effectiveEnv(container, rendered, IMAGE_ENV);

    test("renders both roles", () => {
      expect(deployments.map(nameOf).sort()).toEqual(["facilitator", "registry"]);
    });

    describe.each(each)("%s", (role, deployment) => {
      const spec = podSpecOf(deployment);
      const main = mainContainerOf(deployment);
      const env = envOf(main);
      const port = (main.ports ?? []).find((p) => p.name === "http");

      test("probes: startup and liveness on /health/live, readiness on /health/ready, on the service's port", () => {
        expect(port).toBeDefined();
        expect(main.startupProbe?.httpGet).toEqual({ path: "/health/live", port: "http" });
        expect(main.livenessProbe?.httpGet).toEqual({ path: "/health/live", port: "http" });
        expect(main.readinessProbe?.httpGet).toEqual({ path: "/health/ready", port: "http" });
        // The service gives each dependency probe PROBE_TIMEOUT_MS; Kubernetes must wait longer.
        expect((main.readinessProbe?.timeoutSeconds ?? 1) * 1000).toBeGreaterThan(PROBE_TIMEOUT_MS);
        const parsed = parseAppConfig(env);
        if (!parsed.ok) throw new Error(parsed.errors.join("; "));
        expect(port?.containerPort).toBe(role === "facilitator" ? parsed.config.FACILITATOR_PORT : parsed.config.REGISTRY_PORT);
      });

      test("pod security: non-root, seccomp RuntimeDefault, no privilege escalation, read-only root, all capabilities dropped", () => {
        expectRestrictedPod(spec);
      });

      test("no Kubernetes API token in the pod", () => {
        const account = find(rendered.serviceAccounts, spec.serviceAccountName ?? "", "ServiceAccount");
        expect(spec.automountServiceAccountToken ?? account.automountServiceAccountToken).toBe(false);
      });

      test("shutdown: terminationGracePeriodSeconds > preStop sleep + SHUTDOWN_GRACE_SECONDS (set explicitly)", () => {
        const pause = preStopSeconds(main);
        expect(pause).not.toBeNull();
        expect(pause!).toBeGreaterThanOrEqual(3);
        const grace = (main.env ?? []).find((v) => v.name === "SHUTDOWN_GRACE_SECONDS")?.value;
        expect(grace).toMatch(/^[0-9]+$/);
        expect(spec.terminationGracePeriodSeconds ?? 30).toBeGreaterThan(pause! + Number(grace));
      });

      test("the read-only root leaves DATA_DIR and /tmp writable (emptyDir) for every container running the image", () => {
        for (const container of allContainersOf(deployment).filter((c) => c.image === main.image)) {
          expect(mountedFile(envOf(container)["DATA_DIR"] ?? "", container, spec, rendered)?.kind).toBe("emptyDir");
          expect(mountedFile("/tmp", container, spec, rendered)?.kind).toBe("emptyDir");
        }
      });

      test("every volume is defined, used, and Secret volumes are mounted read-only", () => {
        expectVolumesConsistent(spec);
      });

      test("every file a setting names (…_FILE, …_KEYPAIR_PATH, …_PKCS11_MODULE) is on a volume, and Secret files exist as keys", () => {
        for (const container of allContainersOf(deployment).filter((c) => c.image === main.image)) {
          for (const [name, path] of Object.entries(envOf(container)).filter(([name]) => /(_FILE|_KEYPAIR_PATH|_PKCS11_MODULE)$/.test(name))) {
            const file = mountedFile(path, container, spec, rendered);
            expect({ container: container.name, name, mounted: file !== null }).toEqual({ container: container.name, name, mounted: true });
            if (file?.kind === "secret" || file?.kind === "configMap") expect({ name, key: file.key, exists: file.exists }).toEqual({ name, key: file.key, exists: true });
          }
        }
      });

      test("an init container reading a volume runs after the init container that fills it", () => {
        const inits = spec.initContainers ?? [];
        inits.forEach((reader, i) => {
          for (const mount of (reader.volumeMounts ?? []).filter((m) => m.readOnly)) {
            const writers = inits.map((c, j) => [c, j] as const).filter(([c]) => (c.volumeMounts ?? []).some((m) => m.name === mount.name && !m.readOnly));
            for (const [, j] of writers) expect(j).toBeLessThan(i);
          }
        });
      });

      test("the production guard and the config schema accept the rendered settings; the schema is migrated by the Job, not at boot", () => {
        expect(env["NODE_ENV"]).toBe("production");
        expect(env["ROLE"]).toBe(role);
        const parsed = parseAppConfig(env);
        if (!parsed.ok) throw new Error(parsed.errors.join("; "));
        expect(productionProblems(parsed.config, env)).toEqual([]);
        expect(parsed.config.MIGRATE_ON_BOOT).toBe(false);
      });

      test(`the ${role === "facilitator" ? "fee payer" : "config authority"} is wired (${SIGNER_PREFIX[role as "facilitator" | "registry"]}*) and its settings parse`, () => {
        const prefix = SIGNER_PREFIX[role as "facilitator" | "registry"];
        const parsed = parseSignerConfigs(env, prefix, noFiles);
        if (!parsed.ok) throw new Error(parsed.errors.join("; "));
        expect(parsed.configs.length).toBe(1);
        expect(parsed.configs[0]?.kind).toBe(overlay.startsWith("hsm") ? "pkcs11" : "aws-kms");
      });

      test("autoscaled by exactly one HPA, which owns the replica count; the disruption budget is below its minimum", () => {
        const autoscalers = rendered.autoscalers.filter((h) => h.spec?.scaleTargetRef.kind === "Deployment" && h.spec.scaleTargetRef.name === role);
        expect(autoscalers.length).toBe(1);
        const hpa = autoscalers[0]!.spec!;
        expect(hpa.scaleTargetRef.apiVersion).toBe("apps/v1");
        expect(hpa.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
        expect(hpa.maxReplicas).toBeGreaterThanOrEqual(hpa.minReplicas ?? 1);
        expect(hpa.metrics?.some((m) => m.type === "Resource" && m.resource?.name === "cpu")).toBe(true);
        expect(deployment.spec?.replicas).toBeUndefined();
        for (const container of spec.containers) expect(container.resources?.requests?.["cpu"]).toBeDefined();
        const budget = rendered.disruptionBudgets.find((b) => selectorSelects(b.spec?.selector, deployment.spec?.template.metadata?.labels));
        expect(Number(budget?.spec?.minAvailable)).toBeLessThan(hpa.minReplicas ?? 1);
      });

      test("spread over nodes (hard, cordoned nodes ignored) and zones (soft), so the disruption budget protects something", () => {
        const labels = deployment.spec?.template.metadata?.labels;
        const byKey = new Map((spec.topologySpreadConstraints ?? []).map((c) => [c.topologyKey, c]));
        const host = byKey.get("kubernetes.io/hostname");
        expect(host).toMatchObject({ maxSkew: 1, whenUnsatisfiable: "DoNotSchedule", nodeTaintsPolicy: "Honor" });
        expect(byKey.get("topology.kubernetes.io/zone")).toMatchObject({ maxSkew: 1, whenUnsatisfiable: "ScheduleAnyway" });
        for (const constraint of byKey.values()) {
          expect(selectorSelects(constraint.labelSelector, labels)).toBe(true);
          expect(constraint.matchLabelKeys).toEqual(["pod-template-hash"]);
        }
      });

      test("a NetworkPolicy selects the pods: ingress to the service port, egress to DNS, PostgreSQL and HTTPS", () => {
        const labels = deployment.spec?.template.metadata?.labels;
        const policies = rendered.networkPolicies.filter((p) => selectorSelects(p.spec?.podSelector, labels));
        expect(policies.length).toBeGreaterThan(0);
        const types = policies.flatMap((p) => p.spec?.policyTypes ?? []);
        expect(types).toContain("Ingress");
        expect(types).toContain("Egress");
        const ingressPorts = policies.flatMap((p) => p.spec?.ingress ?? []).flatMap((rule) => rule.ports ?? []).map((p) => p.port);
        expect(ingressPorts).toContain(port?.containerPort);
        const egress = policies.flatMap((p) => p.spec?.egress ?? []).flatMap((rule) => rule.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${p.port}`);
        for (const wanted of ["UDP/53", "TCP/53", "TCP/5432", "TCP/443"]) expect(egress).toContain(wanted);
      });

      test("the admin port (/metrics, /openapi, /docs): named `admin` at ADMIN_PORT as the service reads it, reachable from the monitoring namespace only", () => {
        const parsed = parseAppConfig(env);
        if (!parsed.ok) throw new Error(parsed.errors.join("; "));
        const admin = (main.ports ?? []).find((p) => p.name === "admin");
        expect(admin?.containerPort).toBe(adminPortOf(parsed.config) ?? -1);
        expect(admin?.containerPort).not.toBe(port?.containerPort);
        const labels = deployment.spec?.template.metadata?.labels;
        const rules = rendered.networkPolicies.filter((p) => selectorSelects(p.spec?.podSelector, labels)).flatMap((p) => p.spec?.ingress ?? []);
        // A rule without ports opens every port, the admin port included.
        const opening = rules.filter((rule) => rule.ports === undefined || rule.ports.some((p) => p.port === admin?.containerPort || p.port === "admin"));
        expect(opening.length).toBeGreaterThan(0);
        for (const rule of opening) expect(rule.from).toEqual([{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }]);
      });

      test("a Service selects the pods and targets the named port", () => {
        const service = rendered.services.find((s) => selects(s.spec?.selector, deployment.spec?.template.metadata?.labels));
        expect(service?.spec?.ports?.map((p) => p.targetPort)).toEqual(["http"]);
      });

      test("every ConfigMap and ServiceAccount the pod names is rendered", () => {
        for (const container of allContainersOf(deployment)) {
          for (const source of container.envFrom ?? []) if (source.configMapRef) find(rendered.configMaps, source.configMapRef.name ?? "", "ConfigMap");
        }
        find(rendered.serviceAccounts, spec.serviceAccountName ?? "", "ServiceAccount");
      });
    });

    test("the facilitator is closed to strangers: API keys required (a file from the Secret), and an explicit payTo policy", () => {
      const facilitator = find(deployments, "facilitator", "Deployment");
      const main = mainContainerOf(facilitator);
      const env = envOf(main);
      const keys = mountedFile(env["FACILITATOR_API_KEYS_FILE"] ?? "", main, podSpecOf(facilitator), rendered);
      expect(keys).toMatchObject({ kind: "secret", exists: true });
      expect(podSpecOf(facilitator).volumes?.find((v) => v.name === keys?.volume)?.secret?.secretName).toBe("facilitator-api-keys");
      expect(["registered-agents", "allowlist"]).toContain(env["PAYTO_POLICY"] ?? "unset");
    });

    test("every pod has a NetworkPolicy, and each Service selects only its Deployment's pods (never a check or migration pod)", () => {
      for (const pod of podTemplatesOf(rendered)) {
        expect({ pod: pod.name, policies: rendered.networkPolicies.filter((p) => selectorSelects(p.spec?.podSelector, pod.labels)).length }).toEqual({ pod: pod.name, policies: 1 });
      }
      for (const service of rendered.services) {
        const selected = podTemplatesOf(rendered).filter((pod) => selects(service.spec?.selector, pod.labels)).map((pod) => `${pod.kind}/${pod.name}`);
        expect(selected).toEqual([`Deployment/${nameOf(service)}`]);
      }
    });

    test("the preflight CronJob never fires and runs config-check in a copy of the facilitator's pod: same init containers, settings, Secrets and volumes", () => {
      const cron = find(rendered.cronJobs, "facilitator-preflight", "CronJob");
      expect(cron.spec?.suspend).toBe(true);
      expect(cron.spec?.jobTemplate.spec?.backoffLimit).toBe(0);
      const preflight = podTemplatesOf(rendered).find((pod) => pod.kind === "CronJob")!.spec;
      const facilitator = podSpecOf(find(deployments, "facilitator", "Deployment"));
      expect(preflight.restartPolicy).toBe("Never");
      expect(preflight.initContainers).toEqual(facilitator.initContainers);
      expect(preflight.volumes).toEqual(facilitator.volumes);
      expect(preflight.serviceAccountName).toBe(facilitator.serviceAccountName);
      const check = preflight.containers[0]!;
      const main = facilitator.containers[0]!;
      expect(check.command).toEqual(["bun", "src/tools/config-check.ts"]);
      expect(existsSync(join(ROOT, "src/tools/config-check.ts"))).toBe(true);
      expect(check.image).toBe(main.image);
      expect(check.envFrom).toEqual(main.envFrom);
      expect(check.volumeMounts).toEqual(main.volumeMounts);
      // Every setting the service reads, but the pool (one check, one connection) and the
      // server-only ones (listening address, shutdown grace).
      const serverOnly = new Set(["DATABASE_POOL_MAX", "HOST", "SHUTDOWN_GRACE_SECONDS"]);
      const withoutServerOnly = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([name]) => !serverOnly.has(name)));
      expect(withoutServerOnly(envOf(check))).toEqual(withoutServerOnly(envOf(main)));
      expect(envOf(check)["DATABASE_POOL_MAX"]).toBe("1");
      expectRestrictedPod(preflight);
    });

    test("the facilitator runs `bun src/tools/signer-check.ts` with its own signer settings before it serves, recording a rejected PIN where its restarts see it", () => {
      const facilitator = find(deployments, "facilitator", "Deployment");
      const spec = podSpecOf(facilitator);
      const check = (spec.initContainers ?? []).find((c) => JSON.stringify(c.command) === JSON.stringify(SIGNER_CHECK));
      expect(check).toBeDefined();
      expect(existsSync(join(ROOT, SIGNER_CHECK[1]!))).toBe(true);
      const main = mainContainerOf(facilitator);
      expect(check!.image).toBe(main.image);
      const signerSettings = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("FEE_PAYER_")));
      expect(signerSettings(envOf(check!))).toEqual(signerSettings(envOf(main)));
      const parsed = parseSignerConfigs(envOf(check!), "FEE_PAYER_", noFiles);
      expect(parsed.ok && parsed.configs.length).toBe(1);
      // The record of a rejected PIN must outlive the init container's restarts: an emptyDir
      // (which lives as long as the pod), the same one the service sees.
      const directory = pinRejectionDirectory(envOf(check!));
      expect(directory).not.toBeNull();
      const recorded = mountedFile(directory ?? "", check!, spec, rendered);
      expect(recorded?.kind).toBe("emptyDir");
      expect(mountedFile(pinRejectionDirectory(envOf(main)) ?? "", main, spec, rendered)?.volume).toBe(recorded?.volume);
    });

    test("PostgreSQL connections fit during a rollout at maximum scale (docs/deploy.md, \"Capacity\")", () => {
      const usable = POSTGRES_MAX_CONNECTIONS - POSTGRES_SUPERUSER_RESERVED - OPERATOR_HEADROOM;
      const pods = deployments.map((deployment) => {
        const hpa = rendered.autoscalers.find((h) => h.spec?.scaleTargetRef.name === nameOf(deployment));
        const surge = deployment.spec?.strategy?.rollingUpdate?.maxSurge;
        expect(typeof surge).toBe("number");
        const pool = Number(envOf(mainContainerOf(deployment))["DATABASE_POOL_MAX"]);
        expect(pool).toBeGreaterThan(0);
        return ((hpa?.spec?.maxReplicas ?? 1) + Number(surge)) * pool * POOLS_PER_POD_AT_RECONNECT;
      });
      const total = pods.reduce((a, b) => a + b, 0) + CHECK_CONNECTIONS;
      expect(total).toBeLessThanOrEqual(usable);
      // docs/deploy.md states the same sum.
      const docs = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
      expect(docs).toContain(`**${total} in all**`);
      expect(docs).toContain(`**${usable} usable**`);
    });

    test("the registry's memory request covers its measured peak and its limit leaves a quarter more", () => {
      const registry = mainContainerOf(find(deployments, "registry", "Deployment"));
      expect(bytes(registry.resources?.requests?.["memory"])).toBeGreaterThanOrEqual(REGISTRY_MEASURED_PEAK_BYTES);
      expect(bytes(registry.resources?.limits?.["memory"])).toBeGreaterThanOrEqual(REGISTRY_MEASURED_PEAK_BYTES * 1.25);
    });

    if (overlay.startsWith("hsm")) {
      test.each(each)("%s: PKCS#11 module under /opt/pkcs11 from an emptyDir filled by an init container, PIN only from a mounted Secret file", (role, deployment) => {
        const prefix = SIGNER_PREFIX[role as "facilitator" | "registry"];
        const main = mainContainerOf(deployment);
        const env = envOf(main);
        expect(env[`${prefix}PKCS11_PIN`]).toBeUndefined();
        expect(env[`${prefix}PKCS11_MODULE`]).toStartWith("/opt/pkcs11/");
        const spec = podSpecOf(deployment);
        const module = mountedFile(env[`${prefix}PKCS11_MODULE`] ?? "", main, spec, rendered);
        expect(module?.kind).toBe("emptyDir");
        const filler = (spec.initContainers ?? []).find((c) => (c.volumeMounts ?? []).some((m) => m.name === module?.volume && !m.readOnly));
        expect(filler?.name).toBe("pkcs11-module");
        const pin = mountedFile(env[`${prefix}PKCS11_PIN_FILE`] ?? "", main, spec, rendered);
        expect(pin).toMatchObject({ kind: "secret", exists: true });
        const mode = spec.volumes?.find((v) => v.name === pin?.volume)?.secret?.defaultMode;
        expect(mode !== undefined && (mode & 0o007) === 0).toBe(true);
      });
    }

    if (overlay.startsWith("kms")) {
      test("each role's ServiceAccount carries its own IAM role (eks.amazonaws.com/role-arn)", () => {
        const roles = deployments.map((deployment) => {
          const account = find(rendered.serviceAccounts, podSpecOf(deployment).serviceAccountName ?? "", "ServiceAccount");
          return account.metadata?.annotations?.["eks.amazonaws.com/role-arn"];
        });
        for (const arn of roles) expect(arn).toMatch(/^arn:aws:iam::[0-9]{12}:role\/.+/);
        expect(new Set(roles).size).toBe(deployments.length);
      });
    }

    if (overlay.endsWith("+components")) {
      test("the Ingress terminates TLS for every host it routes, to the Services' named ports, and the registry's host is AUTH_DOMAIN", () => {
        expect(rendered.ingresses.length).toBe(1);
        const ingress = rendered.ingresses[0]!.spec!;
        const hosts = (ingress.rules ?? []).map((rule) => rule.host ?? "");
        const tlsHosts = (ingress.tls ?? []).flatMap((tls) => tls.hosts ?? []);
        expect(hosts.filter((host) => !tlsHosts.includes(host))).toEqual([]);
        for (const rule of ingress.rules ?? []) {
          for (const path of rule.http?.paths ?? []) {
            const backend = path.backend.service!;
            const service = find(rendered.services, backend.name, "Service");
            expect(service.spec?.ports?.map((p) => p.name)).toContain(backend.port?.name);
          }
        }
        const registryHost = (ingress.rules ?? []).find((rule) => rule.http?.paths.some((p) => p.backend.service?.name === "registry"))?.host;
        const registryEnv = envOf(mainContainerOf(find(deployments, "registry", "Deployment")));
        expect(registryEnv["AUTH_DOMAIN"]).toBe(registryHost ?? "no registry host");
        expect(registryEnv["AUTH_URI"]).toBe(`https://${registryHost}`);
      });

      test("the facilitator also scales on in-flight settlements per pod, a metric the service exposes", () => {
        const hpa = rendered.autoscalers.find((h) => h.spec?.scaleTargetRef.name === "facilitator")!.spec!;
        const pods = hpa.metrics?.find((m) => m.type === "Pods")?.pods;
        expect(pods?.metric.name).toBe(SETTLEMENTS_IN_FLIGHT);
        expect(pods?.target.type).toBe("AverageValue");
        expect(hpa.metrics?.some((m) => m.resource?.name === "cpu")).toBe(true);
      });

      test("the migration Job, added as a component, is an Argo CD PreSync and Helm pre-upgrade hook", () => {
        const job = find(rendered.jobs, "facilitator-migrate", "Job");
        expect(job.metadata?.annotations).toMatchObject({ "argocd.argoproj.io/hook": "PreSync", "helm.sh/hook": "pre-install,pre-upgrade" });
      });
    }
  });

  describe("deploy/migrate: the migration Job", () => {
    const rendered = renders["migrate"]!;
    const job = find(rendered.jobs, "facilitator-migrate", "Job");
    const spec = podSpecOf(job);
    const container = spec.containers[0]!;
    const env = effectiveEnv(container, rendered, IMAGE_ENV);

    test("runs `bun src/tools/migrate.ts` once (no restart in place, bounded retries and time) with the migrator's own database role", () => {
      expect(spec.containers.length).toBe(1);
      expect(container.command).toEqual(MIGRATE);
      expect(existsSync(join(ROOT, MIGRATE[1]!))).toBe(true);
      expect(spec.restartPolicy).toBe("Never");
      expect(job.spec?.backoffLimit).toBeLessThanOrEqual(5);
      expect(job.spec?.activeDeadlineSeconds).toBeGreaterThan(0);
      const sources = (container.envFrom ?? []).map((s) => s.secretRef?.name);
      expect(sources).toEqual(["database-migrator"]);
      expect(env["DATABASE_URL"]).toMatch(/^postgres(ql)?:\/\//);
      expect(env["DATABASE_URL"]).not.toBe(SECRETS["database"]?.["DATABASE_URL"]);
      // The role the grants go to is the user of the application's DATABASE_URL.
      expect(env["MIGRATE_GRANT_TO"]).toBe(decodeURIComponent(new URL(SECRETS["database"]?.["DATABASE_URL"] ?? "").username));
    });

    test("pod security as the Deployments', no API token, volumes consistent", () => {
      expectRestrictedPod(spec);
      expectVolumesConsistent(spec);
      const account = find(rendered.serviceAccounts, spec.serviceAccountName ?? "", "ServiceAccount");
      expect(spec.automountServiceAccountToken ?? account.automountServiceAccountToken).toBe(false);
      expect(mountedFile("/tmp", container, spec, rendered)?.kind).toBe("emptyDir");
    });

    test("its NetworkPolicy allows DNS and PostgreSQL only, and no ingress", () => {
      const policies = rendered.networkPolicies.filter((p) => selectorSelects(p.spec?.podSelector, job.spec?.template.metadata?.labels));
      expect(policies.length).toBe(1);
      expect(policies[0]!.spec?.ingress ?? []).toEqual([]);
      const egress = (policies[0]!.spec?.egress ?? []).flatMap((rule) => rule.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${p.port}`).sort();
      expect(egress).toEqual(["TCP/53", "TCP/5432", "UDP/53"]);
    });
  });
});

test("the PodMonitor selects both roles' pods, scrapes /metrics on their `admin` port and, like the PrometheusRule, carries the `release` label kube-prometheus-stack selects on", () => {
  const monitor = parseYaml(readFileSync(join(OBSERVABILITY, "podmonitor.yaml"), "utf8")) as {
    metadata: { labels: Record<string, string> };
    spec: { selector: { matchLabels: Record<string, string>; matchExpressions: { key: string; operator: string; values: string[] }[] }; podMetricsEndpoints: { port: string; path: string }[] };
  };
  // In production the service ports answer /metrics with 404: only the admin port serves it.
  expect(monitor.spec.podMetricsEndpoints.map(({ port, path }) => ({ port, path }))).toEqual([{ port: "admin", path: "/metrics" }]);
  const rule = parseYaml(readFileSync(join(OBSERVABILITY, "alerts.yaml"), "utf8")) as { metadata: { labels: Record<string, string> } };
  expect(monitor.metadata.labels["release"]).toBeTruthy();
  expect(rule.metadata.labels["release"]).toBe(monitor.metadata.labels["release"]!);
  for (const component of ["facilitator", "registry"]) {
    const labels = { "app.kubernetes.io/name": APP, "app.kubernetes.io/component": component };
    expect(selectorSelects(monitor.spec.selector, labels)).toBe(true);
    expect(selectorSelects(monitor.spec.selector, { ...labels, "app.kubernetes.io/component": "migrate" })).toBe(false);
  }
});

function expectRestrictedPod(spec: IPodSpec): void {
  expect(spec.securityContext?.runAsNonRoot).toBe(true);
  expect(spec.securityContext?.runAsUser ?? 0).toBeGreaterThan(0);
  expect(spec.hostNetwork ?? false).toBe(false);
  expect(spec.hostPID ?? false).toBe(false);
  for (const container of allContainersOf(spec)) {
    const context = container.securityContext;
    expect(context?.seccompProfile?.type ?? spec.securityContext?.seccompProfile?.type).toBe("RuntimeDefault");
    expect(context?.runAsNonRoot ?? spec.securityContext?.runAsNonRoot).toBe(true);
    expect(context?.runAsUser ?? spec.securityContext?.runAsUser).not.toBe(0);
    expect(context?.allowPrivilegeEscalation).toBe(false);
    expect(context?.privileged ?? false).toBe(false);
    expect(context?.readOnlyRootFilesystem).toBe(true);
    expect(context?.capabilities?.drop).toContain("ALL");
    expect(context?.capabilities?.add ?? []).toEqual([]);
  }
  expect((spec.volumes ?? []).filter((v) => v.hostPath)).toEqual([]);
}

function expectVolumesConsistent(spec: IPodSpec): void {
  const defined = (spec.volumes ?? []).map((v) => v.name);
  const mounts = allContainersOf(spec).flatMap((c) => c.volumeMounts ?? []);
  expect(mounts.filter((m) => !defined.includes(m.name))).toEqual([]);
  expect(defined.filter((name) => !mounts.some((m) => m.name === name))).toEqual([]);
  const secretVolumes = (spec.volumes ?? []).filter((v) => v.secret).map((v) => v.name);
  expect(mounts.filter((m) => secretVolumes.includes(m.name) && m.readOnly !== true)).toEqual([]);
}

/** A Kubernetes memory quantity in bytes (the binary and decimal suffixes deploy/ uses). */
function bytes(quantity: string | number | undefined): number {
  const match = /^([0-9.]+)(Ki|Mi|Gi|k|M|G)?$/.exec(String(quantity ?? ""));
  if (!match) throw new Error(`not a memory quantity: ${String(quantity)}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9 }[match[2] ?? ""] ?? 1;
  return Number(match[1]) * unit;
}
