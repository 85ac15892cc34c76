// `npm test`: one database server for the whole run (DATABASE_URL's, or an embedded one), a migrated
// template database, then every test file under node --test, each on its own copy of the template.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/config/paths.js';
import { TEMPLATE_ENV, createTemplate, dropDatabase, testServer } from './support/database.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'support' ? [] : testFiles(full);
    return e.name.endsWith('.test.ts') ? [full] : [];
  });
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : testFiles(path.join(projectRoot, 'test')).sort();
const { adminUrl, embedded } = await testServer();
const templateUrl = await createTemplate(adminUrl);
process.stderr.write(
  `tests on ${embedded ? 'embedded PostgreSQL' : 'DATABASE_URL'}${process.env.REDIS_URL ? ' with REDIS_URL' : ''}\n`,
);

const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
    stdio: 'inherit',
    env: { ...process.env, [TEMPLATE_ENV]: templateUrl },
  });
  child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});

await dropDatabase(adminUrl, templateUrl);
await embedded?.stop();
process.exit(code);
