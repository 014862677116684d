/**
 * What the users area needs of API keys, declared here and implemented by
 * the composition root (src/service.ts) with the api-keys area: areas never
 * import each other (.dependency-cruiser.cjs).
 */
export interface UserApiKeys {
  /**
   * Revokes every key the user created (in person or through one of their
   * keys, and so the keys those made); answers how many this call revoked.
   * `revokedBy`: who deleted the user.
   */
  revokeKeysOf(tenantId: string | null, userId: string, revokedBy: string): Promise<number>;
}
