/** The part of autocannon 9's API the soak uses (the package ships no types). */
declare module 'autocannon' {
  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }
  export interface RequestContext {
    [key: string]: unknown;
  }
  export interface RawRequest {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
  }
  export interface AutocannonRequest extends Partial<RawRequest> {
    setupRequest?: (request: RawRequest, context: RequestContext) => RawRequest | false;
    onResponse?: (status: number, body: string, context: RequestContext) => void;
  }
  export interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    requests?: AutocannonRequest[];
    timeout?: number;
  }
  export interface AutocannonResult {
    latency: Histogram;
    requests: Histogram & { total: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}
