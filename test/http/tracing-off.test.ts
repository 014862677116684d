import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingOn } from '../../src/shared/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Tracing is off without OTEL_EXPORTER_OTLP_ENDPOINT: the same service as
 * tracing.test.ts, handed the same in-memory exporter, records no span for
 * requests on either surface, and the driver is not asked to report commands.
 */
const exporter = new InMemorySpanExporter();
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ traceProcessor: new SimpleSpanProcessor({ exporter }) });
});
afterAll(() => app?.close());

describe('tracing without an OTLP endpoint', () => {
  it('records no span for a REST and a GraphQL request', async () => {
    const admin = await app.createUser({ tenantId: 'tenant-untraced' });
    const created = await app.graphql(
      'mutation MakeMenu($name: String!, $date: String!, $mealType: MealType!) { createMealMenu(name: $name, date: $date, mealType: $mealType) { id } }',
      { name: 'Untraced lunch', date: '2026-03-03', mealType: 'lunch' },
      { token: admin.token },
    );
    expect(created.body.errors).toBeUndefined();
    const read = await app.rest('GET', `/restaurant/meal-menus/${created.body.data.createMealMenu.id}`, { token: admin.token });
    expect(read.status).toBe(200);
    // Give a span time to end, as the request's does once its response closes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(tracingOn()).toBe(false);
    expect(mongoose.connection.getClient().options.monitorCommands).toBe(false);
  });
});
