import type { RestRoutes } from '../http/index.js';

/** REST routes of sign-in and its sessions' refresh. */
export const authRestRoutes = {
  'Mutation.login': { method: 'POST', path: '/auth/login', tags: ['auth'] },
  'Mutation.refreshAccessToken': { method: 'POST', path: '/auth/refresh', tags: ['auth'] },
} satisfies RestRoutes;
