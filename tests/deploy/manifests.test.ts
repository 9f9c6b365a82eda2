// Every manifest under deploy/ (base and both overlays, built with the kustomize subset in
// kustomize-subset.ts) validated against the Kubernetes schemas with kubernetes-models, and the
// production invariants asserted on what each overlay really renders: probes, pod security,
// shutdown timing, the signer check, autoscaling, network policy, and settings the service
// itself accepts in production.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { IContainer } from "kubernetes-models/v1/Container";
import { PROBE_TIMEOUT_MS } from "../../src/application/health.ts";
import { parseAppConfig } from "../../src/infrastructure/config/app-config.ts";
import { productionProblems } from "../../src/infrastructure/config/production-guard.ts";
import { parseSignerConfigs } from "../../src/infrastructure/signers/parse-signer-configs.ts";
import { buildKustomization } from "./kustomize-subset.ts";
import {
  allContainersOf,
  effectiveEnv,
  find,
  imageEnv,
  mainContainerOf,
  mountedFile,
  nameOf,
  podSpecOf,
  preStopSeconds,
  render,
  selects,
  validateAgainstSchema,
} from "./rendered.ts";

const ROOT = resolve(import.meta.dir, "../..");
const DEPLOY = join(ROOT, "deploy");
// deploy/observability/ holds monitoring files (alert rules, dashboards) owned and tested with the
// observability work; it is not part of the kustomize tree.
const OUTSIDE_KUSTOMIZE = [join(DEPLOY, "observability")];
const OVERLAYS = ["hsm", "kms"] as const;
const IMAGE_ENV = imageEnv(join(ROOT, "Dockerfile"));
const SIGNER_CHECK = ["bun", "src/tools/signer-check.ts"];
/** PostgreSQL's default max_connections, which every replica's pool shares. */
const POSTGRES_MAX_CONNECTIONS = 100;
const SIGNER_PREFIX = { facilitator: "FEE_PAYER_", registry: "CONFIG_AUTHORITY_" } as const;
const noFiles = (path: string): string => {
  throw new Error(`unexpected read of ${path}`);
};

function yamlFilesUnder(dir: string): string[] {
  if (OUTSIDE_KUSTOMIZE.includes(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

const builds = {
  base: buildKustomization(join(DEPLOY, "base")),
  ...Object.fromEntries(OVERLAYS.map((name) => [name, buildKustomization(join(DEPLOY, "overlays", name))])),
} as Record<"base" | (typeof OVERLAYS)[number], ReturnType<typeof buildKustomization>>;

test("every YAML file under deploy/ (but observability/) is read by a kustomization: no manifest escapes these tests", () => {
  const read = new Set(Object.values(builds).flatMap((build) => [...build.files]));
  const files = yamlFilesUnder(DEPLOY);
  expect(files.length).toBeGreaterThan(10);
  expect(files.filter((file) => !read.has(file))).toEqual([]);
});

test("the schema check is live: kubernetes-models rejects a wrong type", async () => {
  const broken = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, spec: { selector: {}, template: { spec: { containers: [{ name: "x", ports: [{ containerPort: "http" }] }] } } } };
  await expect(validateAgainstSchema(broken)).rejects.toThrow(/containerPort must be integer/);
});

describe.each(Object.keys(builds))("deploy/%s renders resources the Kubernetes schemas accept", (name) => {
  const build = builds[name as keyof typeof builds];
  test.each(build.resources.map((r) => [`${r.kind}/${r.metadata.name}`, r] as const))("%s", async (_, resource) => {
    await validateAgainstSchema(resource);
  });
});

test("the base registry has no init containers (the hsm overlay adds the whole list)", () => {
  const registry = find(render(builds.base).deployments, "registry", "Deployment");
  expect(podSpecOf(registry).initContainers).toBeUndefined();
});

describe.each(OVERLAYS)("deploy/overlays/%s", (overlay) => {
  const rendered = render(builds[overlay]);
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
      expect(spec.securityContext?.runAsNonRoot).toBe(true);
      expect(spec.securityContext?.runAsUser ?? 0).toBeGreaterThan(0);
      expect(spec.hostNetwork ?? false).toBe(false);
      expect(spec.hostPID ?? false).toBe(false);
      for (const container of allContainersOf(deployment)) {
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
      expect(mountedFile(env["DATA_DIR"] ?? "", main, spec, rendered)?.kind).toBe("emptyDir");
      for (const container of allContainersOf(deployment).filter((c) => c.image === main.image)) {
        expect(mountedFile("/tmp", container, spec, rendered)?.kind).toBe("emptyDir");
      }
    });

    test("every volume is defined, used, and Secret volumes are mounted read-only", () => {
      const defined = (spec.volumes ?? []).map((v) => v.name);
      const mounts = allContainersOf(deployment).flatMap((c) => c.volumeMounts ?? []);
      expect(mounts.filter((m) => !defined.includes(m.name))).toEqual([]);
      expect(defined.filter((name) => !mounts.some((m) => m.name === name))).toEqual([]);
      const secretVolumes = (spec.volumes ?? []).filter((v) => v.secret).map((v) => v.name);
      expect(mounts.filter((m) => secretVolumes.includes(m.name) && m.readOnly !== true)).toEqual([]);
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

    test("the production guard and the config schema accept the rendered settings", () => {
      expect(env["NODE_ENV"]).toBe("production");
      expect(env["ROLE"]).toBe(role);
      const parsed = parseAppConfig(env);
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      expect(productionProblems(parsed.config, env)).toEqual([]);
    });

    test(`the ${role === "facilitator" ? "fee payer" : "config authority"} is wired (${SIGNER_PREFIX[role as "facilitator" | "registry"]}*) and its settings parse`, () => {
      const prefix = SIGNER_PREFIX[role as "facilitator" | "registry"];
      const parsed = parseSignerConfigs(env, prefix, noFiles);
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      expect(parsed.configs.length).toBe(1);
      expect(parsed.configs[0]?.kind).toBe(overlay === "hsm" ? "pkcs11" : "aws-kms");
    });

    test("autoscaled by exactly one HPA on CPU, which owns the replica count", () => {
      const autoscalers = rendered.autoscalers.filter((h) => h.spec?.scaleTargetRef.kind === "Deployment" && h.spec.scaleTargetRef.name === role);
      expect(autoscalers.length).toBe(1);
      const hpa = autoscalers[0]!.spec!;
      expect(hpa.scaleTargetRef.apiVersion).toBe("apps/v1");
      expect(hpa.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
      expect(hpa.maxReplicas).toBeGreaterThanOrEqual(hpa.minReplicas ?? 1);
      expect(deployment.spec?.replicas).toBeUndefined();
      for (const container of spec.containers) expect(container.resources?.requests?.["cpu"]).toBeDefined();
      const budget = rendered.disruptionBudgets.find((b) => selects(b.spec?.selector?.matchLabels, deployment.spec?.template.metadata?.labels));
      expect(Number(budget?.spec?.minAvailable)).toBeLessThan(hpa.minReplicas ?? 1);
    });

    test("a NetworkPolicy selects the pods: ingress to the service port, egress to DNS, PostgreSQL and HTTPS", () => {
      const labels = deployment.spec?.template.metadata?.labels;
      const policies = rendered.networkPolicies.filter((p) => selects(p.spec?.podSelector?.matchLabels, labels));
      expect(policies.length).toBeGreaterThan(0);
      const types = policies.flatMap((p) => p.spec?.policyTypes ?? []);
      expect(types).toContain("Ingress");
      expect(types).toContain("Egress");
      const ingressPorts = policies.flatMap((p) => p.spec?.ingress ?? []).flatMap((rule) => rule.ports ?? []).map((p) => p.port);
      expect(ingressPorts).toContain(port?.containerPort);
      const egress = policies.flatMap((p) => p.spec?.egress ?? []).flatMap((rule) => rule.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${p.port}`);
      for (const wanted of ["UDP/53", "TCP/53", "TCP/5432", "TCP/443"]) expect(egress).toContain(wanted);
    });

    test("a Service selects the pods and targets the named port", () => {
      const service = rendered.services.find((s) => selects(s.spec?.selector, deployment.spec?.template.metadata?.labels));
      expect(service?.spec?.ports?.map((p) => p.targetPort)).toEqual(["http"]);
    });

    test("every ConfigMap, Secret and ServiceAccount the pod names is rendered", () => {
      for (const container of allContainersOf(deployment)) {
        for (const source of container.envFrom ?? []) {
          if (source.configMapRef) find(rendered.configMaps, source.configMapRef.name ?? "", "ConfigMap");
          if (source.secretRef) find(rendered.secrets, source.secretRef.name ?? "", "Secret");
        }
      }
      for (const volume of spec.volumes ?? []) if (volume.secret) find(rendered.secrets, volume.secret.secretName ?? "", "Secret");
      find(rendered.serviceAccounts, spec.serviceAccountName ?? "", "ServiceAccount");
    });
  });

  test("the facilitator runs `bun src/tools/signer-check.ts` with its own signer settings before it serves", () => {
    const facilitator = find(deployments, "facilitator", "Deployment");
    const check = (podSpecOf(facilitator).initContainers ?? []).find((c) => JSON.stringify(c.command) === JSON.stringify(SIGNER_CHECK));
    expect(check).toBeDefined();
    expect(existsSync(join(ROOT, SIGNER_CHECK[1]!))).toBe(true);
    const main = mainContainerOf(facilitator);
    expect(check!.image).toBe(main.image);
    const signerSettings = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("FEE_PAYER_")));
    expect(signerSettings(envOf(check!))).toEqual(signerSettings(envOf(main)));
    const parsed = parseSignerConfigs(envOf(check!), "FEE_PAYER_", noFiles);
    expect(parsed.ok && parsed.configs.length).toBe(1);
  });

  test(`all replicas' database pools fit in PostgreSQL's ${POSTGRES_MAX_CONNECTIONS} connections`, () => {
    const connections = deployments.map((deployment) => {
      const hpa = rendered.autoscalers.find((h) => h.spec?.scaleTargetRef.name === nameOf(deployment));
      return (hpa?.spec?.maxReplicas ?? 1) * Number(envOf(mainContainerOf(deployment))["DATABASE_POOL_MAX"] ?? 10);
    });
    expect(connections.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(POSTGRES_MAX_CONNECTIONS);
  });

  if (overlay === "hsm") {
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

  if (overlay === "kms") {
    test("each role's ServiceAccount carries its own IAM role (eks.amazonaws.com/role-arn)", () => {
      const roles = deployments.map((deployment) => {
        const account = find(rendered.serviceAccounts, podSpecOf(deployment).serviceAccountName ?? "", "ServiceAccount");
        return account.metadata?.annotations?.["eks.amazonaws.com/role-arn"];
      });
      for (const arn of roles) expect(arn).toMatch(/^arn:aws:iam::[0-9]{12}:role\/.+/);
      expect(new Set(roles).size).toBe(deployments.length);
    });
  }
});
