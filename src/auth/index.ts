/**
 * Credentials (JWT; API keys plug in as another strategy), the caller
 * (`Actor`) and the resolver context, permissions and the auth checker,
 * tenant confinement, and sign-in. Areas use it; it uses no area: what it
 * reads of users comes through the `AccountStore` port.
 */
export type {
  Account,
  AccountStatus,
  AccountStore,
  ChangeEvents,
  ApiKeyCredentialRecord,
  ApiKeySecretHash,
  ApiKeyStore,
  ApiKeyUse,
  CountedApiKeyUse,
  LoginCandidate,
  AuthEvents,
} from './ports.js';
export { generateApiKeySecret, hashApiKeySecret, parseApiKeySecret, sameHash, type NewApiKeySecret, type ParsedApiKeySecret } from './api-key-secret.js';
export { hasPermission, isPlatformAdmin, isUserInPerson, type Actor, type ApiKeyBounds, type RateLimitState } from './actor.js';
export { apiKeyStrategy, ipAllowList, normalizeIp, RATE_WINDOW_SECONDS, type ApiKeyStrategyOptions } from './api-key.strategy.js';
export {
  createApiKeyCheck,
  type ApiKeyCheck,
  type ApiKeyCheckCode,
  type ApiKeyCheckOptions,
  type ApiKeyOutcome,
  type CheckWithin,
  type KeyPresenter,
  type KeyUseFacts,
  type KeyVerification,
  VERIFY_OPERATION,
} from './api-key-check.js';
export { createUsageRecorder, type UsageRecorder, type UsageRecorderOptions } from './api-key-usage.recorder.js';
export { ACCOUNT_DISABLED, isAccountActive, KEY_CREATOR_DISABLED } from './account-status.js';
export { authChecker } from './auth-checker.js';
export { authRestRoutes } from './auth.routes.js';
export type { AppContext } from './context.js';
export type { SignInAttempt } from './login-throttle.js';
export { credentialFirst } from './credential-first.js';
export { idempotencyScope } from './idempotency-scope.js';
export { API_KEY_PREFIX, createActorResolver, type ActorResolver, type CredentialStrategy } from './credentials.js';
export { CurrentActor } from './current-actor.decorator.js';
export { signAccessToken, verifyAccessToken, type JwtSettings, type SignedAccessToken } from './jwt.js';
export { jwtStrategy } from './jwt.strategy.js';
export { LoginResolver } from './login.resolver.js';
export { LoginService, type LoginSettings } from './login.service.js';
export { accountThrottleKey, admitFromAddress, FIRST_WAIT_SECONDS, ipThrottleKey, MAX_WAIT_SECONDS, type LoginThrottleSettings } from './login-throttle.js';
export { AccessToken, SessionTokens } from './login.types.js';
export { usableAccount, type CredentialHolder, type CredentialName } from './account-check.js';
export { CURRENT_PASSWORD_FIELD, proveCurrentPassword, type ProvedAccount } from './password-proof.js';
export { RefreshResolver } from './refresh.resolver.js';
export { RefreshService, type RefreshClient, type RefreshReuseListener, type RefreshSettings, type ReusedSession } from './refresh.service.js';
export { SESSION_COLLECTION, SessionModel } from './session.model.js';
export { forgetSessionStates, SESSION_STATE_MAX_AGE_MS, SessionRecords, type EndReason, type StoredSession } from './session.store.js';
export { LOGIN_THROTTLE_COLLECTION } from './login-throttle.model.js';
export { hashPassword, limitPasswordWork, verifyPassword, type PasswordWorkLimits } from './password.js';
export { ALL_PERMISSIONS, builtInRole, builtInRoles, isPermission, permissions, type Permission } from './permissions.js';
export { createRequestContextFactory } from './request-context.js';
export { requireActor } from './require-actor.js';
export { permissionsOfRoles } from './role-permissions.js';
export { assertTenantScope, IsTenantId, isTenantId, TENANT_FIELD, TENANT_ID_RULE, tenantForCreate, tenantScope, type TenantFilter } from './tenant-scope.js';
