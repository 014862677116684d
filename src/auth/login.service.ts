import { signAccessToken, type JwtSettings, type SignedAccessToken } from './jwt.js';
import { dummyPasswordHash, verifyPassword } from './password.js';
import { errors } from '../errors/index.js';
import type { AccountStore } from './account-store.js';

export interface LoginInput {
  email: string;
  password: string;
  /** A tenant id; null: the platform account; absent: see AccountStore.findLoginCandidate. */
  tenantId?: string | null;
}

/**
 * Email + password -> access token. At most one account is a candidate (the
 * store chooses it from the email and tenantId), and every sign-in verifies
 * exactly one Argon2id hash: the candidate's, or the dummy one when there is
 * none. An unknown email, an email in many tenants and a wrong password get
 * the same 401 for the same work, so none can be told apart.
 */
export class LoginService {
  constructor(private readonly accounts: AccountStore) {
    // Made now, so the first sign-in without a candidate does not pay for it
    // (a failure here surfaces at that sign-in instead).
    dummyPasswordHash().catch(() => {});
  }

  async login(settings: JwtSettings, input: LoginInput): Promise<SignedAccessToken> {
    const candidate = await this.accounts.findLoginCandidate(input.email, input.tenantId);
    const passwordHash = candidate ? candidate.passwordHash : await dummyPasswordHash();
    const matches = await verifyPassword(passwordHash, input.password);
    if (!candidate || !matches) throw errors.unauthenticated('Invalid email or password');
    return signAccessToken(settings, {
      sub: candidate.id,
      tenant: candidate.tenantId,
      roles: [...candidate.roles],
      ver: candidate.tokenVersion,
    });
  }
}
