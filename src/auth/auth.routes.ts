import type { RestRoutes } from '../http/index.js';

/** REST route of sign-in. */
export const authRestRoutes = {
  'Mutation.login': { method: 'POST', path: '/auth/login', tags: ['auth'] },
} satisfies RestRoutes;
