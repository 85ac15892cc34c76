// The server secret API keys are hashed under. Production requires API_KEY_PEPPER; elsewhere one is
// generated once and kept under DATA_DIR, so keys stay valid across restarts.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/index.js';

export async function resolvePepper(config: Config): Promise<string> {
  if (config.apiKeyPepper) return config.apiKeyPepper;
  if (config.production) throw new Error('API_KEY_PEPPER is required in production');
  const file = path.join(config.dataDir, 'api-key-pepper');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  await mkdir(config.dataDir, { recursive: true });
  const pepper = randomBytes(32).toString('base64url');
  // 'wx': if another process wrote it first, keep theirs.
  await writeFile(file, pepper, { mode: 0o600, flag: 'wx' }).catch(() => {});
  return (await readFile(file, 'utf8')).trim();
}
