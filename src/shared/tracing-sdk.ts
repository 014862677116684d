import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { setTracer } from './tracing.js';

/** What start-up reads for tracing (config.ts's AppConfig['tracing'], restated: config.ts imports shared/). */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL; null: tracing is off. */
  readonly endpoint: string | null;
  readonly serviceName: string;
  readonly sampler: { readonly name: string; readonly ratio: number };
}

export interface RunningTracing {
  /** Exports the spans still queued, then stops recording (call after the last request). */
  stop(): Promise<void>;
}

/** The instrumentation scope of every span. */
const TRACER_NAME = 'admin-gateway';

/**
 * Starts recording spans when the settings name an endpoint: the SDK is
 * imported here, on demand, so a service without tracing never loads it.
 * Spans go in batches to the OTLP/HTTP endpoint, or to `processor` when one
 * is given (tests: the SDK's in-memory exporter behind a SimpleSpanProcessor).
 * The exporter reads its other standard variables itself
 * (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, the certificates).
 * Context is carried by AsyncLocalStorage, and a caller's W3C `traceparent` is
 * continued. One tracing per process: a second start replaces the first's tracer.
 */
export async function startTracing(settings: TracingSettings, processor?: SpanProcessor): Promise<RunningTracing | undefined> {
  if (!settings.endpoint) return undefined;
  const [sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { defaultResource, resourceFromAttributes }, api] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/api'),
  ]);
  const exporting =
    processor ?? new sdk.BatchSpanProcessor({ exporter: new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url: settings.endpoint }) });
  const provider = new sdk.TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName })),
    sampler: samplerOf(sdk, settings.sampler),
    spanProcessors: [exporting],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  setTracer(provider.getTracer(TRACER_NAME));
  return {
    async stop() {
      setTracer(undefined);
      await provider.shutdown();
      api.context.disable();
      api.propagation.disable();
    },
  };
}

/** OTEL_TRACES_SAMPLER's standard meanings (the SDK no longer reads the variable itself). */
function samplerOf(sdk: typeof import('@opentelemetry/sdk-trace'), { name, ratio }: TracingSettings['sampler']): Sampler {
  const root = name.endsWith('always_off') ? new sdk.AlwaysOffSampler() : name.endsWith('traceidratio') ? new sdk.TraceIdRatioBasedSampler(ratio) : new sdk.AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root;
}
