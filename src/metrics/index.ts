/**
 * The service's Prometheus metrics (prom-client): one registry per service
 * instance with its instruments, fed by the HTTP edge, auth, GraphQL's limits
 * and the webhook worker, and read at scrape from the database pool and the
 * embedded engine. GET /metrics (src/http/metrics.ts) serves it.
 */
export { ServiceMetrics, type DeliveryOutcome, type EngineObservation, type ServiceMetricsOptions, type Surface } from './service-metrics.js';
