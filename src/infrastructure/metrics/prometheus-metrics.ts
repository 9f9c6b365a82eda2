import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { GaugeSample, Labels, Metrics } from "../../application/ports/metrics.ts";

/** Seconds; covers a cache hit (sub-millisecond) up to a settlement waiting out its confirmation. */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export type PrometheusMetricsOptions = Readonly<{
  /**
   * prom-client's default process metrics (`process_*` CPU, memory, file descriptors, start time;
   * `nodejs_*` event-loop lag, heap, handles). The composition root turns them on; an app built
   * alone in a test leaves them off.
   */
  processMetrics?: boolean;
}>;

export type PrometheusMetrics = Metrics & Readonly<{ registry: Registry }>;

type Known<M> = { metric: M; labelNames: readonly string[]; labelKey: string };

/**
 * The Metrics port over one prom-client Registry. Whoever creates it owns it: the service builds
 * one per process (buildService) and hands it to both HTTP interfaces, so nothing here is a
 * module-level global. Recording a name with other label names than at its first use is a
 * programming error and throws (every call site passes constant label names).
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const counters = new Map<string, Known<Counter>>();
  const gauges = new Map<string, Known<Gauge>>();
  const histograms = new Map<string, Known<Histogram>>();

  return Object.freeze({
    registry,
    contentType: registry.contentType,
    increment(name: string, help: string, labels: Labels, by = 1) {
      metricOf(counters, name, labels, (labelNames) => new Counter({ name, help, labelNames, registers: [registry] })).inc(labels, by);
    },
    set(name: string, help: string, labels: Labels, value: number) {
      metricOf(gauges, name, labels, (labelNames) => new Gauge({ name, help, labelNames, registers: [registry] })).set(labels, value);
    },
    observe(name: string, help: string, labels: Labels, seconds: number) {
      const create = (labelNames: string[]) => new Histogram({ name, help, labelNames, buckets: [...DURATION_BUCKETS], registers: [registry] });
      metricOf(histograms, name, labels, create).observe(labels, seconds);
    },
    gaugeFrom(name: string, help: string, labelNames: readonly string[], read: () => readonly GaugeSample[]) {
      new Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        collect() {
          this.reset();
          for (const sample of read()) this.set(sample.labels, sample.value);
        },
      });
    },
    render: () => registry.metrics(),
  });
}

/** The metric of `name`, created at its first use; later uses must name the same labels. */
function metricOf<M>(known: Map<string, Known<M>>, name: string, labels: Labels, create: (labelNames: string[]) => M): M {
  const entry = known.get(name);
  if (entry !== undefined && sameLabelNames(labels, entry.labelNames)) return entry.metric;
  const labelNames = Object.keys(labels);
  const labelKey = [...labelNames].sort().join(",");
  if (entry) {
    if (entry.labelKey !== labelKey) throw new Error(`metric ${name} recorded with labels {${labelKey}}, first with {${entry.labelKey}}`);
    return entry.metric;
  }
  const metric = create(labelNames);
  known.set(name, { metric, labelNames, labelKey });
  return metric;
}

/**
 * The usual case, checked without allocating: the same label names in the same order as at
 * first use (call sites pass constant names). Sorting and joining them on every record cost
 * about a microsecond, several times per settlement.
 */
function sameLabelNames(labels: Labels, names: readonly string[]): boolean {
  let count = 0;
  for (const key in labels) {
    if (key !== names[count]) return false;
    count++;
  }
  return count === names.length;
}
