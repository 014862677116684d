import 'reflect-metadata';
import mongoose from 'mongoose';
import { generateApiKeySecret } from '../src/auth/api-key-secret.js';
import { hashPassword } from '../src/auth/password.js';
import { connectMongoose } from '../src/database.js';
import { ApiKeyModel } from '../src/api-keys/api-key.model.js';
import { MealMenuModel, MealType } from '../src/menus/meal-menu.model.js';
import { UserModel } from '../src/users/user.model.js';

/**
 * The bench's data, written through the service's own models (so defaults
 * and validation are the service's) in batches: one tenant with `users`
 * users (an admin first), `keys` API keys and `menus` menus. Every user
 * shares one Argon2 hash, made once: hashing 10k passwords would take minutes.
 */
export const BENCH_TENANT = 'bench';
export const ADMIN_EMAIL = 'bench-admin@example.com';
export const PASSWORD = 'Bench-Passw0rd';

export interface SeedCounts {
  users: number;
  keys: number;
  menus: number;
}

export interface Seeded {
  adminId: string;
  /** The credential the key scenarios use: created by the admin, scopes api-keys:read and menus:read, the highest rate limit. */
  apiKeySecret: string;
  menuIds: string[];
  apiKeyIds: string[];
}

const BATCH = 1000;
const MEAL_TYPES = Object.values(MealType);

export async function seed(uri: string, dbName: string, counts: SeedCounts): Promise<Seeded> {
  await connectMongoose(uri, dbName);
  try {
    const passwordHash = await hashPassword(PASSWORD);
    const userIds: string[] = [];
    for (let start = 0; start < counts.users; start += BATCH) {
      const docs = range(start, Math.min(counts.users, start + BATCH)).map((i) => ({
        email: i === 0 ? ADMIN_EMAIL : `bench-user-${i}@example.com`,
        passwordHash,
        firstName: i === 0 ? 'Admin' : `User ${i}`,
        lastName: 'Bench',
        roles: [i === 0 ? 'admin' : 'member'],
        tenant_id: BENCH_TENANT,
      }));
      const inserted = await UserModel.insertMany(docs);
      userIds.push(...inserted.map((user) => String(user._id)));
    }
    const adminId = userIds[0];

    const credential = generateApiKeySecret();
    const apiKeyIds: string[] = [];
    for (let start = 0; start < counts.keys; start += BATCH) {
      const docs = range(start, Math.min(counts.keys, start + BATCH)).map((i) => {
        const secret = i === 0 ? credential : generateApiKeySecret();
        const creator = i === 0 ? adminId : userIds[i % userIds.length];
        return {
          keyId: secret.keyId,
          name: i === 0 ? 'bench credential' : `key ${i}`,
          description: `Seeded by the bench (${i})`,
          scopes: i === 0 ? ['api-keys:read', 'menus:read'] : ['menus:read'],
          rateLimit: i === 0 ? 1_000_000 : 1000,
          createdBy: creator,
          updatedBy: creator,
          metadata: { seeded: true, n: i },
          tenant_id: BENCH_TENANT,
          secrets: [{ hash: secret.hash, validUntil: null }],
        };
      });
      const inserted = await ApiKeyModel.insertMany(docs);
      apiKeyIds.push(...inserted.map((key) => String(key._id)));
    }

    const menuIds: string[] = [];
    for (let start = 0; start < counts.menus; start += BATCH) {
      const docs = range(start, Math.min(counts.menus, start + BATCH)).map((i) => ({
        name: `Menu ${i}`,
        description: 'Seeded by the bench',
        date: new Date(Date.UTC(2026, 0, 1 + (i % 365))).toISOString().slice(0, 10),
        mealType: MEAL_TYPES[i % MEAL_TYPES.length],
        items: [
          { name: 'Soup of the day', description: 'Tomato and basil', allergens: ['celery'] },
          { name: 'Grilled fish', allergens: ['fish'] },
          { name: 'Bread', allergens: ['gluten'] },
        ],
        estimatedPortions: i % 200,
        tenant_id: BENCH_TENANT,
        createdBy: adminId,
        updatedBy: adminId,
        deletedAt: null,
      }));
      const inserted = await MealMenuModel.insertMany(docs);
      menuIds.push(...inserted.map((menu) => String(menu._id)));
    }
    return { adminId, apiKeySecret: credential.secret, menuIds, apiKeyIds };
  } finally {
    await mongoose.disconnect();
  }
}

/** Signs in through the service's own REST route (the seeded admin by default); returns the access token. */
export async function signIn(baseUrl: string, email = ADMIN_EMAIL, password = PASSWORD): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = (await response.json()) as { accessToken?: string };
  if (response.status !== 200 || !body.accessToken) throw new Error(`sign-in of ${email} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.accessToken;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}
