import 'reflect-metadata';
import { parseArgs } from 'node:util';
import mongoose from 'mongoose';
import { signAccessToken } from './auth/jwt.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './database.js';
import { createLogger } from './logger.js';
import { createPlatformAdmin } from './users/bootstrap.js';
import { emailCollation, UserModel } from './users/user.model.js';

const usage = `Usage:
  npm run cli -- create-admin --email <email> --password <password>
      Creates a platform administrator (no tenant, every permission).
  npm run cli -- token --email <email> [--tenant <tenantId>]
      Prints an access token for an existing user (uses JWT_SECRET: set it,
      or the token is signed with a throwaway secret the server does not know).
Uses the same configuration as the server (MONGODB_URI or the engine on DATA_DIR;
stop the server first when it runs the embedded engine on the same DATA_DIR).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let values: { email?: string; password?: string; tenant?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { email: { type: 'string' }, password: { type: 'string' }, tenant: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    // An unknown option or a missing value is bad usage (2), not a failure (1).
    console.error(`${(err as Error).message}\n${usage}`);
    return 2;
  }
  if ((command !== 'create-admin' && command !== 'token') || !values.email) {
    console.error(usage);
    return 2;
  }
  const { config, warnings } = loadConfig();
  const logger = createLogger({ logLevel: 'warn' });
  warnings.forEach((warning) => logger.warn(warning));
  const database = await openDatabase(config, logger);
  try {
    if (command === 'create-admin') {
      if (!values.password) {
        console.error(usage);
        return 2;
      }
      if (await UserModel.exists({ email: values.email, tenant_id: null }).collation(emailCollation)) {
        console.error(`A platform user with the email ${values.email} already exists`);
        return 1;
      }
      const admin = await createPlatformAdmin({ email: values.email, password: values.password });
      console.log(JSON.stringify(admin));
      return 0;
    }
    const filter = { email: values.email, ...(values.tenant ? { tenant_id: values.tenant } : {}) };
    const users = await UserModel.find(filter, { _id: 1, tenant_id: 1, roles: 1 }).collation(emailCollation).limit(2).lean();
    if (users.length !== 1) {
      console.error(users.length === 0 ? 'No such user' : 'Several users have this email: name one with --tenant');
      return 1;
    }
    const [user] = users;
    const token = signAccessToken(config.jwt, { sub: String(user._id), tenant: user.tenant_id ?? null, roles: user.roles ?? [] });
    console.log(JSON.stringify(token));
    return 0;
  } finally {
    await database.close();
    if (mongoose.connection.readyState !== 0) await mongoose.disconnect();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
