import { signAccessToken, type JwtSettings, type SignedAccessToken } from '../auth/jwt.js';
import { verifyAgainstDummy, verifyPassword } from '../auth/password.js';
import { errors } from '../errors.js';
import { emailCollation, UserModel } from './user.model.js';

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
export async function login(settings: JwtSettings, input: LoginInput): Promise<SignedAccessToken> {
  const filter = input.tenantId ? { email: input.email, tenant_id: input.tenantId } : { email: input.email };
  const candidates = await UserModel.find(filter, { _id: 1, tenant_id: 1, roles: 1, passwordHash: 1 })
    .collation(emailCollation)
    .limit(MAX_CANDIDATES)
    .lean();

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
  return signAccessToken(settings, { sub: String(user._id), tenant: user.tenant_id ?? null, roles: user.roles ?? [] });
}

function invalidCredentials() {
  return errors.unauthenticated('Invalid email or password');
}
