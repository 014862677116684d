import type { useSofa } from 'sofa-api';

/** sofa-api's option types, which its entry point does not export by name. */
export type SofaConfig = Parameters<typeof useSofa>[0];
export type RouteConfig = NonNullable<SofaConfig['routes']>[string];
/** What SOFA's error handler returns (fets' Response; the global one is compatible at run time). */
export type SofaResponse = ReturnType<NonNullable<SofaConfig['errorHandler']>>;
