import type { Actor } from './actor.js';
import type { KeyVerification } from './api-key-check.js';
import type { AppConfig } from '../config.js';
import type { AppError } from '../errors/index.js';
import type { Logger } from '../logger.js';

/**
 * What every resolver sees, on both surfaces: the request edge
 * (src/http/use-request-edge.ts) builds it once per request with
 * `createRequestContextFactory` (request-context.ts) and hands it to Apollo and SOFA.
 */
export interface AppContext {
  /** null: no credential was sent. */
  actor: Actor | null;
  requestId: string;
  ip: string;
  origin?: string;
  /** The User-Agent header, when sent: kept with a sign-in session. */
  userAgent?: string;
  logger: Logger;
  /** The service's settings (e.g. JWT settings for login). */
  config: AppConfig;
  /**
   * A credential was sent but refused (401/403/429). Kept, not thrown, so that
   * operations open to anyone (login) still work; protected operations throw it.
   */
  credentialError?: AppError;
  /** verifyApiKey's way to the API key credential's check and the usage log (absent where keys are not served). */
  keyVerification?: KeyVerification;
  /** The operations (`Query.mealMenus`) the request reached, as the auth checker met them: an API key's use logs them. */
  operations?: string[];
}
