import type { RestRoutes } from '../http/index.js';

/** REST route of the audit trail (read only), relative to the `/api/v1` mount. */
export const auditRestRoutes = {
  'Query.auditEvents': { method: 'GET', path: '/audit-events', tags: ['audit'] },
} satisfies RestRoutes;
