import { validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { HasNoIgnoredCharacter, IsAcceptablePassword, isAcceptablePassword, isEmailAddress } from '../../src/shared/credential-rules.js';

/** The password rule of the service description (§2.2), shared by every place that sets a password. */
describe('the password rule', () => {
  it.each([
    ['6 characters with upper, lower and a digit', 'Abcde1'],
    ['a non-word character instead of a digit', 'Abcde!'],
    ['50 characters', `Ab1${'x'.repeat(47)}`],
    ['spaces (a non-word character)', 'Pass word'],
  ])('accepts %s', (_name, password) => {
    expect(isAcceptablePassword(password)).toBe(true);
  });

  it.each([
    ['5 characters', 'Abc1!'],
    ['51 characters', `Ab1${'x'.repeat(48)}`],
    ['no uppercase letter', 'abcdef1!'],
    ['no lowercase letter', 'ABCDEF1!'],
    ['neither a digit nor a non-word character', 'Abcdefgh'],
    ['no string', 123456],
  ])('refuses %s', (_name, password) => {
    expect(isAcceptablePassword(password)).toBe(false);
  });

  it('counts characters, not UTF-16 units (an emoji is one)', () => {
    expect(isAcceptablePassword(`Ab1${'😀'.repeat(47)}`)).toBe(true);
  });

  it('is a class-validator rule named isAcceptablePassword that states the rule', async () => {
    class Input {
      @IsAcceptablePassword()
      password = 'short';
    }
    const [error] = await validate(new Input());
    expect(error.constraints).toEqual({
      isAcceptablePassword: expect.stringMatching(/^password must be 6 to 50 characters long and contain an uppercase letter/),
    });
  });
});

describe('the email rule (as login checks it)', () => {
  it('accepts an address with a domain', () => {
    expect(isEmailAddress('root@example.com')).toBe(true);
  });

  it.each(['root', 'root@', 'root@localhost', 'a b@example.com', `${'a'.repeat(310)}@example.com`])('refuses %s', (text) => {
    expect(isEmailAddress(text)).toBe(false);
  });

  // ADMIN_EMAIL and the CLI's create-admin: an invisible spelling of another address is no address of its own.
  it.each(['ro\u00ADot@example.com', 'ro\u200Bot@example.com', 'ro\u0640ot@example.com', 'ro\u0591ot@example.com'])('refuses %j, with a character email comparison ignores', (text) => {
    expect(isEmailAddress(text)).toBe(false);
  });

  it('is a class-validator rule named hasNoIgnoredCharacter that names the character', async () => {
    class Input {
      @HasNoIgnoredCharacter()
      email = 'bo\u0640ss@globex.test';
    }
    const [error] = await validate(new Input());
    expect(error.constraints).toEqual({ hasNoIgnoredCharacter: 'email must not contain U+0640, a character email comparison ignores' });
  });
});
