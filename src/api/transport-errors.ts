// Answers to what goes wrong before (or instead of) a route: unparseable HTTP, oversized headers, a
// path that is not valid UTF-8 or whose parameter is too long, HTTP/1.1 without Host or with two, unknown
// routes, unreadable bodies. Every one is the error envelope of docs/contract.md ("Errors") with a
// request id, and an answer after which the connection cannot go on says `Connection: close`.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KEYLESS_PER_MINUTE, openWindow, rateLimitHeaders } from '../ratelimit/index.js';
import type { ErrorLog } from './error-log.js';
import { ApiError, internalError } from './errors.js';
import { newRequestId } from './ids.js';
import { errorReply } from './rest.js';

/** Node's limit on a request's headers (its default, stated: the 431 message names it). */
const MAX_HEADER_BYTES = 16 * 1024;

/** The status and message for an error Node's HTTP parser raised on a connection. */
function clientErrorAnswer(code: string | undefined): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, message: `The request headers are too large (${MAX_HEADER_BYTES / 1024} KB at most).` };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request took too long to arrive.' };
  return { status: 400, message: 'The request is not valid HTTP.' };
}

/**
 * Node's `clientError`: the request could not be parsed, so no route or hook runs. The answer is
 * written on the socket by hand, in the envelope, and the connection closes after it.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = clientErrorAnswer(err.code);
  endRaw(socket, status, 'bad_request', message);
}

/** An answer in the envelope written on the socket by hand (no route will answer), then the connection closed. */
function endRaw(socket: Socket, status: number, code: string, message: string, headers = ''): void {
  const requestId = newRequestId();
  const body = JSON.stringify({ error: { code, message, request_id: requestId } });
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n${headers}` +
        'Connection: close\r\n\r\n' +
        body,
    );
  } else socket.destroy();
}

/** CONNECT (a proxy's tunnel) reaches no route: Node hands it to this listener, else closes the socket unanswered. */
export function refuseConnect(server: http.Server): void {
  server.on('connect', (_req: http.IncomingMessage, socket: Socket) =>
    endRaw(socket, 405, 'bad_request', 'CONNECT is not served: this is no proxy.', 'Allow: GET, POST\r\n'),
  );
}

/**
 * The router's own refusals: a path that does not decode, a path parameter past the router's length.
 * They are answered before any hook runs, so the request id and the keyless window are set here.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', req.id).headers(rateLimitHeaders(openWindow(KEYLESS_PER_MINUTE, Date.now())));
  const message =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path segment is too long.'
      : 'The request path is not valid: it must be percent-encoded UTF-8.';
  return errorReply(reply, req.id, new ApiError('bad_request', message));
}

/** Fastify's 4xx in words for a person filling in a form. */
function browserMessage(err: FastifyError): string {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return 'The form was larger than this site accepts, so nothing was saved. Go back and send less text.';
  return `${err.message || 'The request could not be read.'} Nothing was changed.`;
}

/**
 * The web app's answers to a browser asking for a page (src/web/error-pages.ts): whether the request is one,
 * where an unknown page address goes instead (a trailing slash, a case variant), and the error page itself.
 */
export interface BrowserPages {
  wants(req: FastifyRequest): boolean;
  redirect(req: FastifyRequest): string | null;
  send(req: FastifyRequest, reply: FastifyReply, status: number, message: string): Promise<FastifyReply>;
}

/**
 * Registers the answers above that need the app: Host check, unknown routes, unreadable requests. With `pages`,
 * a browser's page request gets a page instead of the envelope; the API's paths never do.
 */
export function registerTransportErrors(app: FastifyInstance, errors: ErrorLog, pages?: BrowserPages): void {
  // HTTP/1.1 requires exactly one Host (Node's own refusal of a request without one has an empty body, and
  // of repeated ones it keeps the first: the raw header lines show every occurrence).
  app.addHook('onRequest', async (req, reply) => {
    const hosts = req.raw.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'host').length;
    if ((req.raw.httpVersion === '1.1' && hosts === 0) || hosts > 1) {
      reply.header('connection', 'close');
      const message = hosts > 1 ? 'A request carries one Host header, not several.' : undefined;
      return errorReply(
        reply,
        req.id,
        new ApiError('bad_request', message ?? 'HTTP/1.1 requests must carry a Host header.'),
      );
    }
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const moved = pages?.redirect(req);
    if (moved) return reply.redirect(moved, 301);
    if (pages?.wants(req)) return pages.send(req, reply, 404, `There is no page at ${path}.`);
    return errorReply(
      reply,
      req.id,
      new ApiError('not_found', `No route ${req.method} ${path}. See /v1/openapi.json.`),
    );
  });
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode ?? 500;
    const page = pages?.wants(req) ? pages : null;
    if (status >= 500) {
      errors.error(err, { request_id: req.id }, 'request failed');
      if (page) return page.send(req, reply, 500, 'The page could not be made. Try again in a moment.');
      return errorReply(reply, req.id, internalError());
    }
    if (page) return page.send(req, reply, status, browserMessage(err));
    // Fastify's own 4xx (a body too large, a bad content type...): its message, our envelope and status.
    return reply.code(status).send(new ApiError('bad_request', err.message || 'Bad request.').body(req.id));
  });
}
