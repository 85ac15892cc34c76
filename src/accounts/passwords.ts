// Passwords: Argon2id (@node-rs/argon2, off the main thread) with OWASP's recommended parameters. The
// hash string carries its parameters and salt, so they can be raised later without a migration.
import { randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** OWASP Password Storage Cheat Sheet: Argon2id, 19 MiB, 2 iterations, 1 lane (about 11 ms here). */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Shorter passwords are refused: NIST SP 800-63B asks at least 8; a paid account gets a little more. */
export const PASSWORD_MIN = 10;
/** Longer ones are refused too: hashing megabytes on request is a way to slow the server down. */
export const PASSWORD_MAX = 200;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2);

/** A hash of nothing anyone knows: checked when the address is unknown, so both cases take as long. */
let decoy: Promise<string> | null = null;

/** True when `password` matches `stored`; with no stored hash, spends the same time and answers false. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    decoy ??= hashPassword(randomUUID());
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
