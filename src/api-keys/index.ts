/** The API keys area: its resolver, REST routes, models, service and its store (ApiKeyRecords), and auth's ApiKeyStore implementation (the credential store). */
export { GRANT_MAX_AGE_MS, grantCap, MAX_GRANT } from './api-key-grants.js';
export { createApiKeyStore, type ApiKeyStoreHandle, type ApiKeyStoreOptions } from './api-key-credential.store.js';
export { API_KEY_USAGE_COLLECTION, ApiKeyUsage, ApiKeyUsageModel } from './api-key-usage.model.js';
export { API_KEY_LIMITS, isIpOrCidr, isOrigin } from './api-key-limits.js';
export {
  API_KEY_COLLECTION,
  ApiKey,
  ApiKeyModel,
  ApiKeyStatus,
  apiKeyStatusAt,
  DEFAULT_RATE_LIMIT,
  USAGE_LOGS_IN_RECORD,
} from './api-key.model.js';
export { ApiKeyResolver } from './api-key.resolver.js';
export { ApiKeyService, type RevokedApiKey } from './api-key.service.js';
export { ApiKeyRecords, type ApiKeyDocument, type ApiKeyUsageDocument } from './api-key.store.js';
export { ApiKeyPage, ApiKeyUsagePage, ApiKeyWithSecret } from './api-key.types.js';
export { apiKeyRestRoutes } from './api-keys.routes.js';
export { apiKeyReplayedResults, REPLAYED_WITHOUT_SECRET } from './api-key-replay.js';
export { ApiKeyExpirySweeper, expiryWindowAt, EXPIRY_WINDOWS, type ApiKeyExpirySweeperOptions, type ExpiryWindow } from './api-key-expiry.sweeper.js';
export { EXPIRY_PAGE } from './api-key-expiry.store.js';
