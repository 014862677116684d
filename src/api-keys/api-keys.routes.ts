import type { RestRoutes } from '../http/index.js';

const tags = ['api-keys'];

/** REST routes of the API keys area, relative to /api/v1. */
export const apiKeyRestRoutes = {
  'Query.apiKeys': { method: 'GET', path: '/api-keys', tags },
  'Query.apiKey': { method: 'GET', path: '/api-keys/:id', tags },
  'Query.apiKeyUsageLogs': { method: 'GET', path: '/api-keys/:id/usage-logs', tags },
  'Mutation.createApiKey': { method: 'POST', path: '/api-keys', responseStatus: 201, tags },
  'Mutation.revokeApiKey': { method: 'PATCH', path: '/api-keys/:id/revoke', tags },
  'Mutation.rollApiKey': { method: 'POST', path: '/api-keys/:id/roll', tags },
  // Usage over time, from the hourly rollups.
  'Query.apiKeyUsage': { method: 'GET', path: '/api-keys/:id/usage', tags },
  'Query.apiKeyScopeReport': { method: 'GET', path: '/api-keys/:id/scope-report', tags },
  'Query.apiKeyRateLimitPreview': { method: 'GET', path: '/api-keys/:id/rate-limit-preview', tags },
  'Query.apiKeyLineage': { method: 'GET', path: '/api-keys/:id/lineage', tags },
  // managing a key
  'Mutation.updateApiKey': { method: 'PATCH', path: '/api-keys/:id', tags },
  'Mutation.disableApiKey': { method: 'PATCH', path: '/api-keys/:id/disable', tags },
  'Mutation.enableApiKey': { method: 'PATCH', path: '/api-keys/:id/enable', tags },
  // verify: 200 for every well-formed request, whatever the code
  'Mutation.verifyApiKey': { method: 'POST', path: '/api-keys/verify', tags },
} satisfies RestRoutes;
