import { signAccessToken, type JwtSettings, type SignedAccessToken } from './jwt.js';
import { verifyAgainstDummy, verifyPassword } from './password.js';
import { errors } from '../errors/index.js';
import type { AccountStore } from './account-store.js';

export interface LoginInput {
  email: string;
  password: string;
  tenantId?: string | null;
}

/** At most this many same-email accounts are tried when no tenant is named. */
const MAX_CANDIDATES = 10;

/**
 * Email + password -> access token. An unknown email and a wrong password get
 * the same 401 and cost the same hashing work, so neither can be told apart.
 */
export class LoginService {
  constructor(private readonly accounts: AccountStore) {}

  async login(settings: JwtSettings, input: LoginInput): Promise<SignedAccessToken> {
    const candidates = await this.accounts.findLoginCandidates(input.email, input.tenantId ?? undefined, MAX_CANDIDATES);
    if (candidates.length === 0) {
      await verifyAgainstDummy(input.password);
      throw invalidCredentials();
    }
    const matches = [];
    for (const candidate of candidates) {
      if (await verifyPassword(candidate.passwordHash, input.password)) matches.push(candidate);
    }
    if (matches.length === 0) throw invalidCredentials();
    if (matches.length > 1) {
      // Only someone who knows the password learns the email exists in several tenants.
      throw errors.invalidField('tenantId', 'required', 'tenantId is required: this account exists in several tenants');
    }
    const [user] = matches;
    return signAccessToken(settings, { sub: user.id, tenant: user.tenantId, roles: [...user.roles] });
  }
}

function invalidCredentials() {
  return errors.unauthenticated('Invalid email or password');
}
