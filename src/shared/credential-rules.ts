import { isEmail, ValidateBy, type ValidationOptions } from 'class-validator';

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

/** The email rule of `login` (class-validator's `@IsEmail()` and `@MaxLength(EMAIL_MAX_LENGTH)`). */
export function isEmailAddress(text: string): boolean {
  return text.length <= EMAIL_MAX_LENGTH && isEmail(text);
}
