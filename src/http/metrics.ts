/** Label values by name; kept small and bounded (routes, statuses, reason codes). */
export type Labels = Readonly<Record<string, string>>;

/** Seconds; covers a cache hit (sub-millisecond) up to a slow confirmation. */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Histogram = { buckets: number[]; sum: number; count: number };

export type Metrics = Readonly<{
  /** Adds `by` (default 1) to a counter. */
  increment(name: string, help: string, labels: Labels, by?: number): void;
  /** Sets a gauge to its current value. */
  set(name: string, help: string, labels: Labels, value: number): void;
  observe(name: string, help: string, labels: Labels, seconds: number): void;
  /** Prometheus text exposition format 0.0.4. */
  render(): string;
}>;

export function createMetrics(): Metrics {
  const counters = new Map<string, { help: string; series: Map<string, number> }>();
  const histograms = new Map<string, { help: string; series: Map<string, Histogram> }>();
  const gauges = new Map<string, { help: string; series: Map<string, number> }>();

  return Object.freeze({
    increment(name: string, help: string, labels: Labels, by = 1) {
      const family = counters.get(name) ?? counters.set(name, { help, series: new Map() }).get(name)!;
      const key = labelText(labels);
      family.series.set(key, (family.series.get(key) ?? 0) + by);
    },
    set(name: string, help: string, labels: Labels, value: number) {
      const family = gauges.get(name) ?? gauges.set(name, { help, series: new Map() }).get(name)!;
      family.series.set(labelText(labels), value);
    },
    observe(name: string, help: string, labels: Labels, seconds: number) {
      const family = histograms.get(name) ?? histograms.set(name, { help, series: new Map() }).get(name)!;
      const key = labelText(labels);
      const h = family.series.get(key) ?? family.series.set(key, { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }).get(key)!;
      BUCKETS.forEach((bound, i) => {
        if (seconds <= bound) h.buckets[i] = (h.buckets[i] ?? 0) + 1;
      });
      h.sum += seconds;
      h.count += 1;
    },
    render() {
      const lines: string[] = [];
      for (const [name, { help, series }] of counters) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
        for (const [labels, value] of series) lines.push(`${name}${braces(labels)} ${value}`);
      }
      for (const [name, { help, series }] of gauges) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
        for (const [labels, value] of series) lines.push(`${name}${braces(labels)} ${value}`);
      }
      for (const [name, { help, series }] of histograms) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
        for (const [labels, h] of series) {
          BUCKETS.forEach((bound, i) => lines.push(`${name}_bucket${braces(join(labels, `le="${bound}"`))} ${h.buckets[i]}`));
          lines.push(`${name}_bucket${braces(join(labels, 'le="+Inf"'))} ${h.count}`);
          lines.push(`${name}_sum${braces(labels)} ${h.sum}`, `${name}_count${braces(labels)} ${h.count}`);
        }
      }
      return `${lines.join("\n")}\n`;
    },
  });
}

function labelText(labels: Labels): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`)
    .join(",");
}

const braces = (labels: string) => (labels === "" ? "" : `{${labels}}`);
const join = (a: string, b: string) => (a === "" ? b : `${a},${b}`);
