import 'reflect-metadata';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import mongoose from 'mongoose';
import { signAccessToken } from './auth/index.js';
import { ConfigError, loadConfig } from './config.js';
import { isDuplicateKey } from './errors/index.js';
import { backupUsage, runBackupCommand } from './cli-backup.js';
import { openDatabase } from './database.js';
import { createLogger } from './logger.js';
import { isAcceptablePassword, isEmailAddress, PASSWORD_RULE } from './shared/index.js';
import { createPlatformAdmin, emailCollation, migrateUserEmailIndex, UserModel, UserStatus } from './users/index.js';

const usage = `Usage:
  printf '%s\\n' "$PASSWORD" | npm run cli -- create-admin --email <email> --password-stdin
      Creates a platform administrator (no tenant, every permission), reading
      the password from the first line of stdin. The password ${PASSWORD_RULE}.
      (--password <password> works too, but is discouraged: a command line is
      visible to every user of the machine in ps and /proc, and lands in shell history.)
  npm run cli -- token --email <email> [--tenant <tenantId>]
      Prints an access token for an existing, enabled user (uses JWT_SECRET: set it,
      or the token is signed with a throwaway secret the server does not know).
${backupUsage}
Uses the same configuration as the server (MONGODB_URI or the engine on DATA_DIR;
stop the server first when it runs the embedded engine on the same DATA_DIR,
except for backup, which asks the server's engine to write it).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'backup' || command === 'restore') return runBackupCommand(command, rest, cliConfig());
  let values: { email?: string; password?: string; 'password-stdin'?: boolean; tenant?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        tenant: { type: 'string' },
      },
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
  let password = '';
  if (command === 'create-admin') {
    const checked = await adminPassword({ ...values, email: values.email });
    if ('problem' in checked) {
      console.error(checked.problem);
      return 2;
    }
    password = checked.password;
  }
  const config = cliConfig();
  const logger = createLogger({ logLevel: 'warn' });
  const database = await openDatabase(config, logger);
  try {
    await migrateUserEmailIndex(logger);
    if (command === 'create-admin') {
      // Idempotent, as first start is: a second run (a retried script) leaves the administrator as it is.
      const existing = await platformUser(values.email);
      if (existing) {
        console.error(`A platform user with the email ${values.email} already exists: left unchanged (its password too)`);
        console.log(JSON.stringify(existing));
        return 0;
      }
      try {
        console.log(JSON.stringify(await createPlatformAdmin({ email: values.email, password })));
      } catch (err) {
        // Another run created it meanwhile.
        const created = isDuplicateKey(err) ? await platformUser(values.email) : null;
        if (!created) throw err;
        console.log(JSON.stringify(created));
      }
      return 0;
    }
    // A deleted user gets no token (as it cannot sign in).
    const filter = { email: values.email, deletedAt: null, ...(values.tenant ? { tenant_id: values.tenant } : {}) };
    const users = await UserModel.find(filter, { _id: 1, tenant_id: 1, roles: 1, tokenVersion: 1, status: 1 }).collation(emailCollation).limit(2).lean();
    if (users.length !== 1) {
      console.error(users.length === 0 ? 'No such user' : 'Several users have this email: name one with --tenant');
      return 1;
    }
    const [user] = users;
    // The server would refuse the token (401 "Account disabled"): say so now rather than print a dead one.
    if (user.status === UserStatus.disabled) {
      console.error('This user is disabled: no token is issued (an administrator can enable them again)');
      return 1;
    }
    const token = signAccessToken(config.jwt, {
      sub: String(user._id),
      tenant: user.tenant_id ?? null,
      roles: user.roles ?? [],
      // The user's current version: a later password change ends this token too.
      ver: user.tokenVersion ?? 0,
    });
    console.log(JSON.stringify(token));
    return 0;
  } finally {
    await database.close();
    if (mongoose.connection.readyState !== 0) await mongoose.disconnect();
  }
}

/** The server's configuration, its warnings logged. */
function cliConfig(): ReturnType<typeof loadConfig>['config'] {
  // ADMIN_EMAIL/ADMIN_PASSWORD are first start's, not the CLI's: a shell that exports only
  // ADMIN_PASSWORD (to pipe it into create-admin) must not make the configuration invalid.
  const { ADMIN_EMAIL: _email, ADMIN_PASSWORD: _password, ...env } = process.env;
  const { config, warnings } = loadConfig(env);
  const logger = createLogger({ logLevel: 'warn' });
  warnings.forEach((warning) => logger.warn(warning));
  return config;
}

/** The platform user (no tenant) with this email, as create-admin prints one; null when there is none. */
async function platformUser(email: string): Promise<{ id: string; email: string } | null> {
  const user = await UserModel.findOne({ email, tenant_id: null, deletedAt: null }, { email: 1 }).collation(emailCollation).lean();
  return user ? { id: String(user._id), email: user.email } : null;
}

/**
 * create-admin's password, from stdin or --password, checked against the
 * password rule (with the email) before the database opens: a refused
 * administrator changes nothing.
 */
async function adminPassword(values: { email: string; password?: string; 'password-stdin'?: boolean }): Promise<{ password: string } | { problem: string }> {
  const fromStdin = values['password-stdin'] === true;
  if (values.password !== undefined && fromStdin) return { problem: `Give either --password or --password-stdin, not both\n${usage}` };
  const password = fromStdin ? await readFirstLine(process.stdin) : values.password;
  if (!password) return { problem: `${fromStdin ? 'No password on stdin' : 'No password given'}\n${usage}` };
  if (!isEmailAddress(values.email)) return { problem: `The email "${values.email}" is not an email address` };
  if (!isAcceptablePassword(password)) return { problem: `The password ${PASSWORD_RULE}` };
  return { password };
}

/** The first line of a stream (without its line break), or null when it ends before one starts. */
async function readFirstLine(input: NodeJS.ReadableStream): Promise<string | null> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  // Leaving the loop closes the interface: nothing after the first line is read.
  for await (const line of lines) return line;
  return null;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
