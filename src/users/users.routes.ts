import type { RestRoutes } from '../http/index.js';

const tags = ['access-control'];

/** REST routes of the access-control area (users, roles, permissions). */
export const accessControlRestRoutes = {
  'Query.users': { method: 'GET', path: '/access-control/users', tags },
  'Query.user': { method: 'GET', path: '/access-control/users/:id', tags },
  'Mutation.createUser': { method: 'POST', path: '/access-control/users', responseStatus: 201, tags },
  'Mutation.updateUser': { method: 'PATCH', path: '/access-control/users/:id', tags },
  'Mutation.disableUser': { method: 'PATCH', path: '/access-control/users/:id/disable', tags },
  'Mutation.enableUser': { method: 'PATCH', path: '/access-control/users/:id/enable', tags },
  'Mutation.deleteUser': { method: 'DELETE', path: '/access-control/users/:id', tags },
  'Query.roles': { method: 'GET', path: '/access-control/roles', tags },
  'Mutation.createRole': { method: 'POST', path: '/access-control/roles', responseStatus: 201, tags },
  'Query.me': { method: 'GET', path: '/auth/me', tags: ['auth'] },
  'Query.permissions': { method: 'GET', path: '/access-control/permissions', tags },
  // Password tickets, and one role read, changed and deleted.
  'Mutation.createPasswordTicket': { method: 'POST', path: '/access-control/users/:id/password-ticket', responseStatus: 201, tags },
  'Mutation.redeemPasswordTicket': { method: 'POST', path: '/auth/password-ticket', tags: ['auth'] },
  'Query.role': { method: 'GET', path: '/access-control/roles/:id', tags },
  'Mutation.updateRole': { method: 'PATCH', path: '/access-control/roles/:id', tags },
  'Mutation.deleteRole': { method: 'DELETE', path: '/access-control/roles/:id', tags },
  // Sessions and credentials in person (session.resolver.ts).
  'Query.mySessions': { method: 'GET', path: '/auth/sessions', tags: ['auth'] },
  'Query.session': { method: 'GET', path: '/auth/sessions/:id', tags: ['auth'] },
  'Mutation.endSession': { method: 'DELETE', path: '/auth/sessions/:id', tags: ['auth'] },
  'Mutation.logout': { method: 'POST', path: '/auth/logout', tags: ['auth'] },
  'Mutation.changePassword': { method: 'POST', path: '/auth/password', tags: ['auth'] },
  'Query.userSessions': { method: 'GET', path: '/access-control/users/:id/sessions', tags },
  'Mutation.endUserSessions': { method: 'DELETE', path: '/access-control/users/:id/sessions', tags },
} satisfies RestRoutes;
