import { Histogram, type Registry } from 'prom-client';

/** One label set's observations: a count per bucket (not cumulative), their sum and count. */
interface Series<L extends string> {
  labels: Record<L, string | number>;
  counts: Float64Array;
  sum: number;
  count: number;
}

export interface RequestHistogramConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** Upper bounds, ascending (the +Inf bucket is implied). */
  buckets: readonly number[];
  registry: Registry;
}

/**
 * A histogram for the request path. prom-client's `observe` hashes and checks
 * the labels on every call (about 2 µs measured, a bound series included);
 * here a series is found once by its key and an observation is a bucket
 * search and three additions. The registry reads it as any prom-client
 * histogram: a subclass that answers these series when scraped.
 */
export class RequestHistogram<L extends string> {
  private readonly series = new Map<string, Series<L>>();
  private readonly bounds: readonly number[];

  constructor({ name, help, labelNames, buckets, registry }: RequestHistogramConfig<L>) {
    this.bounds = buckets;
    const series = this.series;
    class Exported extends Histogram<L> {
      override async get(): ReturnType<Histogram<L>['get']> {
        return { name, help, type: 'histogram', aggregator: 'sum', values: exported(name, buckets, series.values()) } as unknown as Awaited<ReturnType<Histogram<L>['get']>>;
      }

      /** What the registry's text rendering reads (prom-client's own histogram has it too). */
      getForPromString(): ReturnType<Histogram<L>['get']> {
        return this.get();
      }
    }
    new Exported({ name, help, labelNames: [...labelNames], buckets: [...buckets], registers: [registry] });
  }

  /** Adds `value` to the series `key` names; false when there is none yet (then `create` it). */
  observe(key: string, value: number): boolean {
    const found = this.series.get(key);
    if (!found) return false;
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket++;
    found.counts[bucket]! += 1;
    found.sum += value;
    found.count += 1;
    return true;
  }

  /** A new series: `key` must name exactly these labels. */
  create(key: string, labels: Record<L, string | number>): void {
    if (!this.series.has(key)) this.series.set(key, { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 });
  }
}

/** The exposition rows of every series: cumulative buckets with `le`, then +Inf, `_sum` and `_count`. */
function exported<L extends string>(name: string, bounds: readonly number[], all: Iterable<Series<L>>) {
  const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
  for (const { labels, counts, sum, count } of all) {
    let cumulative = 0;
    bounds.forEach((bound, index) => {
      cumulative += counts[index]!;
      values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
    });
    values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count });
    values.push({ metricName: `${name}_sum`, labels, value: sum });
    values.push({ metricName: `${name}_count`, labels, value: count });
  }
  return values;
}
