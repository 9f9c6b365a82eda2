/**
 * Typed views of what `kubectl kustomize` renders: each resource checked against its Kubernetes
 * schema with kubernetes-models, then read through the kubernetes-models interfaces, plus what a
 * container would see at run time (the image's ENV, envFrom, env, with the out-of-band Secrets as
 * docs/deploy.md creates them) and where its files come from.
 */
import { readFileSync } from "node:fs";
import { posix } from "node:path";
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { CronJob, type ICronJob } from "kubernetes-models/batch/v1/CronJob";
import { type IJob, Job } from "kubernetes-models/batch/v1/Job";
import { Ingress, type IIngress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { type INetworkPolicy, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { type IPodDisruptionBudget, PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap, type IConfigMap } from "kubernetes-models/v1/ConfigMap";
import type { IContainer } from "kubernetes-models/v1/Container";
import type { IPodSpec } from "kubernetes-models/v1/PodSpec";
import { type ISecret, Secret } from "kubernetes-models/v1/Secret";
import { type IService, Service } from "kubernetes-models/v1/Service";
import { type IServiceAccount, ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { finalStage, parseDockerfile, stageEnv } from "../container/support/dockerfile.ts";
import type { DocumentedSecrets } from "./documented-secrets.ts";
import type { Resource } from "./kustomize.ts";

type Validatable = { validate(): void };

/**
 * Instantiates the kubernetes-models class for the resource's apiVersion and kind and validates it
 * (types, required fields, enums, formats). The schemas accept unknown fields, as the API server
 * does with field validation off, so the invariants in the tests pin every field that matters.
 */
export async function validateAgainstSchema(resource: Resource): Promise<void> {
  const module = (await import(`kubernetes-models/${resource.apiVersion}`)) as Record<string, unknown>;
  const Model = module[resource.kind];
  if (typeof Model !== "function") throw new Error(`kubernetes-models has no ${resource.apiVersion} ${resource.kind}`);
  const model = new (Model as new (data: unknown) => Validatable & { apiVersion: string; kind: string })(resource);
  if (model.apiVersion !== resource.apiVersion || model.kind !== resource.kind) throw new Error(`${resource.kind} became ${model.apiVersion} ${model.kind}`);
  model.validate();
}

/** What has a pod template at spec.template (a CronJob's is under spec.jobTemplate: `podTemplateOf`). */
export type Workload = IDeployment | IJob;

export type Rendered = Readonly<{
  all: readonly Resource[];
  deployments: readonly IDeployment[];
  jobs: readonly IJob[];
  cronJobs: readonly ICronJob[];
  ingresses: readonly IIngress[];
  autoscalers: readonly IHorizontalPodAutoscaler[];
  networkPolicies: readonly INetworkPolicy[];
  disruptionBudgets: readonly IPodDisruptionBudget[];
  services: readonly IService[];
  serviceAccounts: readonly IServiceAccount[];
  configMaps: readonly IConfigMap[];
  /** Rendered Secrets: none, by design (item checked by the tests); the out-of-band ones are `documented`. */
  secrets: readonly ISecret[];
  /** The Secrets docs/deploy.md has the operator create, standing in for the cluster's. */
  documented: DocumentedSecrets;
}>;

export function render(resources: readonly Resource[], documented: DocumentedSecrets): Rendered {
  const pick = <T>(is: (value: unknown) => value is T): T[] => {
    const picked: T[] = [];
    for (const resource of resources) if (is(resource)) picked.push(resource);
    return picked;
  };
  return {
    all: resources,
    deployments: pick(Deployment.is),
    jobs: pick(Job.is),
    cronJobs: pick(CronJob.is),
    ingresses: pick(Ingress.is),
    autoscalers: pick(HorizontalPodAutoscaler.is),
    networkPolicies: pick(NetworkPolicy.is),
    disruptionBudgets: pick(PodDisruptionBudget.is),
    services: pick(Service.is),
    serviceAccounts: pick(ServiceAccount.is),
    configMaps: pick(ConfigMap.is),
    secrets: pick(Secret.is),
    documented,
  };
}

export const nameOf = (resource: { metadata?: { name?: string } }): string => resource.metadata?.name ?? "";

export function podSpecOf(workload: Workload): IPodSpec {
  const spec = workload.spec?.template.spec;
  if (!spec) throw new Error(`${nameOf(workload)}: no pod spec`);
  return spec;
}

/** The service's own container: the one named after the Deployment. */
export function mainContainerOf(deployment: IDeployment): IContainer {
  const container = podSpecOf(deployment).containers.find((c) => c.name === nameOf(deployment));
  if (!container) throw new Error(`${nameOf(deployment)}: no container named after it`);
  return container;
}

export function allContainersOf(workload: Workload | IPodSpec): readonly IContainer[] {
  const spec = "containers" in workload ? workload : podSpecOf(workload);
  return [...(spec.initContainers ?? []), ...spec.containers];
}

export function find<T extends { metadata?: { name?: string } }>(items: readonly T[], name: string, what: string): T {
  const item = items.find((i) => nameOf(i) === name);
  if (!item) throw new Error(`${what} ${name} is referenced but not defined`);
  return item;
}

/** An out-of-band Secret's keys and values as docs/deploy.md creates it; throws when the docs create no such Secret. */
export function secretValues(rendered: Rendered, name: string): Readonly<Record<string, string>> {
  const values = rendered.documented[name];
  if (values === undefined) throw new Error(`Secret ${name} is referenced but docs/deploy.md never creates it`);
  return values;
}

/** The runtime stage's ENV of the Dockerfile (read with tests/container's parser): what every container starts with. */
export function imageEnv(dockerfile: string): Record<string, string> {
  return stageEnv(finalStage(parseDockerfile(readFileSync(dockerfile, "utf8"))));
}

/** The environment the process sees: image ENV, then envFrom in order, then env (Kubernetes' precedence). */
export function effectiveEnv(container: IContainer, rendered: Rendered, image: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = { ...image };
  for (const source of container.envFrom ?? []) {
    if (source.prefix) throw new Error(`${container.name}: envFrom prefixes are not expected`);
    if (source.configMapRef) Object.assign(env, find(rendered.configMaps, source.configMapRef.name ?? "", "ConfigMap").data ?? {});
    if (source.secretRef) Object.assign(env, secretValues(rendered, source.secretRef.name ?? ""));
  }
  for (const variable of container.env ?? []) {
    if (variable.value === undefined) throw new Error(`${container.name}: ${variable.name} has no literal value`);
    env[variable.name] = variable.value;
  }
  return env;
}

export type MountedFile = Readonly<{ mountPath: string; volume: string; kind: "secret" | "configMap" | "emptyDir" | "other"; key?: string; exists: boolean }>;

/**
 * Where a path a setting names comes from inside `container`: the volume mounted above it and,
 * for a Secret or ConfigMap volume, whether the key the file name maps to exists. null when no
 * mount covers the path (it would be read from the image).
 */
export function mountedFile(path: string, container: IContainer, spec: IPodSpec, rendered: Rendered): MountedFile | null {
  const mounts = (container.volumeMounts ?? []).filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
  const mount = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!mount) return null;
  const volume = (spec.volumes ?? []).find((v) => v.name === mount.name);
  if (!volume) throw new Error(`${container.name}: volume ${mount.name} is mounted but not defined`);
  const key = posix.relative(mount.mountPath, path);
  if (volume.secret) {
    if (volume.secret.items) throw new Error(`${volume.name}: items are not expected`);
    return { mountPath: mount.mountPath, volume: volume.name, kind: "secret", key, exists: key in secretValues(rendered, volume.secret.secretName ?? "") };
  }
  if (volume.configMap) {
    const map = find(rendered.configMaps, volume.configMap.name ?? "", "ConfigMap");
    return { mountPath: mount.mountPath, volume: volume.name, kind: "configMap", key, exists: key in (map.data ?? {}) };
  }
  return { mountPath: mount.mountPath, volume: volume.name, kind: volume.emptyDir ? "emptyDir" : "other", exists: true };
}

/** The preStop pause in seconds: an exec of `sleep N` or the native sleep action. */
export function preStopSeconds(container: IContainer): number | null {
  const preStop = container.lifecycle?.preStop;
  if (preStop?.sleep) return preStop.sleep.seconds;
  const command = preStop?.exec?.command;
  if (command?.length === 2 && command[0] === "sleep" && /^[0-9]+$/.test(command[1] ?? "")) return Number(command[1]);
  return null;
}

/** Whether a label selector's matchLabels (the form the workloads' selectors use) selects these labels. */
export function selects(matchLabels: Readonly<Record<string, string>> | undefined, labels: Readonly<Record<string, string>> | undefined): boolean {
  const wanted = Object.entries(matchLabels ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels?.[key] === value);
}

type LabelSelector = Readonly<{ matchLabels?: Readonly<Record<string, string>>; matchExpressions?: readonly Readonly<{ key: string; operator: string; values?: readonly string[] }>[] }>;

/** A full label selector (matchLabels and matchExpressions, as Kubernetes evaluates them); an empty one selects nothing here. */
export function selectorSelects(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>> | undefined): boolean {
  const expressions = selector?.matchExpressions ?? [];
  if (Object.keys(selector?.matchLabels ?? {}).length === 0 && expressions.length === 0) return false;
  const byLabels = Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);
  return byLabels && expressions.every((e) => {
    const value = labels?.[e.key];
    if (e.operator === "In") return value !== undefined && (e.values ?? []).includes(value);
    if (e.operator === "NotIn") return value === undefined || !(e.values ?? []).includes(value);
    if (e.operator === "Exists") return value !== undefined;
    if (e.operator === "DoesNotExist") return value === undefined;
    throw new Error(`unknown selector operator ${e.operator}`);
  });
}

/** The pods a workload runs: a Deployment's or Job's template, or a CronJob's job template's. */
export function podTemplatesOf(rendered: Rendered): readonly Readonly<{ name: string; kind: string; labels: Readonly<Record<string, string>>; spec: IPodSpec }>[] {
  const of = (kind: string, name: string, template: { metadata?: { labels?: Record<string, string> }; spec?: IPodSpec } | undefined) => {
    if (!template?.spec) throw new Error(`${kind}/${name}: no pod spec`);
    return { name, kind, labels: template.metadata?.labels ?? {}, spec: template.spec };
  };
  return [
    ...rendered.deployments.map((d) => of("Deployment", nameOf(d), d.spec?.template)),
    ...rendered.jobs.map((j) => of("Job", nameOf(j), j.spec?.template)),
    ...rendered.cronJobs.map((c) => of("CronJob", nameOf(c), c.spec?.jobTemplate.spec?.template)),
  ];
}
