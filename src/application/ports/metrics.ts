/** Label values by name; kept small and bounded (routes, statuses, reason codes, adapter kinds). */
export type Labels = Readonly<Record<string, string>>;

/** One value of a gauge read at scrape time, with its labels. */
export type GaugeSample = Readonly<{ labels: Labels; value: number }>;

/**
 * Counters, gauges and histograms by name, for whoever instruments the service. A name keeps the
 * label names of its first use; `help` is its one-line description. The Prometheus adapter lives in
 * src/infrastructure/metrics; nothing here knows the exposition format.
 */
export type Metrics = Readonly<{
  /** Adds `by` (default 1) to a counter. */
  increment(name: string, help: string, labels: Labels, by?: number): void;
  /** Sets a gauge to its current value. */
  set(name: string, help: string, labels: Labels, value: number): void;
  /** Records one duration, in seconds, in a histogram. */
  observe(name: string, help: string, labels: Labels, seconds: number): void;
  /**
   * A gauge whose samples are read when metrics are scraped (work in flight, a cache's age); every
   * sample carries exactly `labelNames`. Registered once per name.
   */
  gaugeFrom(name: string, help: string, labelNames: readonly string[], read: () => readonly GaugeSample[]): void;
  /** The exposition of everything recorded, and its content type. */
  render(): Promise<string>;
  readonly contentType: string;
}>;

/**
 * Metrics that record nothing and expose an empty page: for an HTTP interface built without the
 * service's metrics (a test of its routes). The service always passes its Prometheus metrics.
 */
export const noMetrics: Metrics = Object.freeze({
  increment() {},
  set() {},
  observe() {},
  gaugeFrom() {},
  render: async () => "",
  contentType: "text/plain; charset=utf-8",
});
