import { isEmail, ValidateBy, type ValidationOptions } from 'class-validator';
import { collationKey, ignorableCharacters } from '../engine/collation/index.js';

/**
 * The rules a user's credentials follow (service description §2.2), in one
 * place: the first-start administrator (ADMIN_EMAIL / ADMIN_PASSWORD), the CLI's
 * create-admin and the User inputs all check them here.
 */
export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 50;
export const EMAIL_MAX_LENGTH = 320;

/** Said after the name of what was checked: `ADMIN_PASSWORD must be …`. */
export const PASSWORD_RULE =
  `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long and contain an uppercase letter, ` +
  'a lowercase letter, and a digit or a non-word character';

export function isAcceptablePassword(password: unknown): boolean {
  if (typeof password !== 'string') return false;
  // Characters, not UTF-16 units: an emoji counts once, as class-validator's Length counts it.
  const length = [...password].length;
  return (
    length >= PASSWORD_MIN_LENGTH &&
    length <= PASSWORD_MAX_LENGTH &&
    /[A-Z]/.test(password) &&
    /[a-z]/.test(password) &&
    /[\d\W]/.test(password)
  );
}

/** class-validator rule `isAcceptablePassword`, for the User inputs. */
export function IsAcceptablePassword(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAcceptablePassword',
      validator: {
        validate: (value) => isAcceptablePassword(value),
        defaultMessage: () => `$property ${PASSWORD_RULE}`,
      },
    },
    options,
  );
}

/** How emails are compared: case-insensitively. The unique index, sign-in and the sign-in throttle use it. */
export const EMAIL_COLLATION = { locale: 'en', strength: 2 } as const;

/**
 * An email as EMAIL_COLLATION compares it (case, compatibility forms and
 * ignored characters folded): the sign-in throttle's key, so no spelling of
 * an account's email gets a counter of its own.
 */
export function emailComparisonKey(email: string): string {
  return collationKey(email, EMAIL_COLLATION);
}

/**
 * The first character of an email that its comparison ignores (soft hyphen,
 * zero-width space, Arabic tatweel, Hebrew cantillation marks, controls...),
 * or undefined. Such emails are refused: invisible spellings of another
 * address would look it up (here and on MongoDB's ICU) yet look different.
 */
export function ignoredEmailCharacter(email: string): string | undefined {
  const pattern = ignorableCharacters(EMAIL_COLLATION);
  pattern.lastIndex = 0;
  return pattern.exec(email)?.[0];
}

/** `U+00AD`. */
const codePointName = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** class-validator rule `hasNoIgnoredCharacter`, on every email input (users, sign-in). */
export function HasNoIgnoredCharacter(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasNoIgnoredCharacter',
      validator: {
        validate: (value) => typeof value !== 'string' || ignoredEmailCharacter(value) === undefined,
        defaultMessage: (args) =>
          `$property must not contain ${codePointName(ignoredEmailCharacter(String(args?.value)) ?? '?')}, a character email comparison ignores`,
      },
    },
    options,
  );
}

/** The email rule of `login` (class-validator's `@IsEmail()`, `@MaxLength(EMAIL_MAX_LENGTH)` and `@HasNoIgnoredCharacter()`). */
export function isEmailAddress(text: string): boolean {
  return text.length <= EMAIL_MAX_LENGTH && isEmail(text) && ignoredEmailCharacter(text) === undefined;
}
