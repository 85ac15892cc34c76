// The HTTP application: one Fastify instance with the health routes and the versioned API.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../config/index.js';
import type { Database } from '../db/index.js';

export interface AppDeps {
  readonly config: Config;
  readonly db: Database;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  const app = Fastify({
    logger: { level: config.logLevel },
    trustProxy: config.trustProxy,
    disableRequestLogging: true,
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await db.readPool.query('SELECT 1');
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database does not answer' });
    }
  });
  return app;
}
