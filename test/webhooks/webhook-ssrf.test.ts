import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/webhooks/index.js';
import { apiCase, runCases } from '../support/surfaces.js';
import { eventually } from '../support/webhook-receiver.js';
import { makeWebhook, useWebhookApp } from './webhook-fixtures.js';

/**
 * The SSRF guard (contract: in production an endpoint must be https and
 * may not resolve to a loopback, private or link-local address): checked
 * at connect time on every address the request's own DNS lookup answers.
 */
describe('forbidden addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['100.127.255.255', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fc00::1', true],
    ['fd00:ec2::254', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:a9fe:a9fe', true],
    ['not an address', true],
    ['192.0.0.8', true],
    ['198.18.0.1', true],
    ['198.19.255.255', true],
    ['224.0.0.1', true],
    ['239.255.255.250', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    ['fec0::1', true],
    ['ff02::1', true],
    ['64:ff9b::7f00:1', true], // NAT64 of 127.0.0.1
    ['64:ff9b::10.0.0.1', true],
    ['64:ff9b::a9fe:a9fe', true], // NAT64 of 169.254.169.254
    ['64:ff9b:1::a00:1', true], // local-use NAT64
    ['2002:7f00:1::1', true], // 6to4 of 127.0.0.1
    ['2002:808:808::1', true], // 6to4, refused whole
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true], // Teredo, refused whole
    ['64:ff9b::808:808', false], // NAT64 of 8.8.8.8
    ['2001:db8:1::1', false],
    ['198.20.0.1', false],
    ['223.255.255.255', false],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['100.128.0.1', false],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s forbidden: %s', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });
});

const world = useWebhookApp({ env: { NODE_ENV: 'production' }, webhooks: { pollMs: 50, retryScheduleMs: [60_000] } });

runCases('in production an endpoint must be https (POST /webhooks, createWebhook)', () => world.app, [
  apiCase({
    name: 'an http url is 400 (url https)',
    caller: () => world.admin,
    operation: () => ({
      rest: { method: 'POST', path: '/webhooks', body: { url: 'http://hooks.example.com/x', events: ['*'] } },
      graphql: { query: 'mutation { createWebhook(url: "http://hooks.example.com/x", events: ["*"]) { id } }' },
    }),
    expect: { status: 400, fieldErrors: [{ field: 'url', rule: 'https' }] },
  }),
]);

describe('a delivery to a forbidden address in production', () => {
  it.each([
    ['a loopback literal', 'https://127.0.0.1:9/hook', /^refused: 127\.0\.0\.1 is a loopback, private, link-local or reserved address/],
    // The refusal names the host, never the address it resolved to (the network's, not the tenant's).
    ['a name resolving to loopback (checked in the request\'s own lookup)', 'https://localhost:9/hook', /^refused: localhost resolves to a loopback, private, link-local or reserved address \(WEBHOOK_ALLOW_PRIVATE=true allows it\)$/],
  ])('%s ends as a failed attempt with a clear error', async (_name, url, error) => {
    const hook = await makeWebhook(world.app, world.admin, { url, events: ['*'] });
    const sent = await world.app.rest('POST', `/webhooks/${hook.id}/test`, { token: world.admin.token });
    expect(sent.status).toBe(200);
    const delivery = await eventually(async () => {
      const page = await world.app.rest('GET', `/webhooks/${hook.id}/deliveries`, { token: world.admin.token });
      const [first] = page.body.items;
      return first?.attempts === 1 && first;
    });
    expect(delivery).toMatchObject({ status: 'pending', responseStatus: null });
    expect(delivery.error).toMatch(error);
  });
});
