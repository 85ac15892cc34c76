// The pipeline's last stage, as an answer leaves (docs/contract.md, "What a client can rely on"). A charged answer
// is sent only once its credits are kept, with its request-log row, daily usage and idempotent copy, in one committed
// transaction: a retry with the same Idempotency-Key gets it free. The common answer (one credit, no key) starts its
// keep as its handler starts (begin), so that the keep's round trip overlaps the handler's read; a crash while it
// is handled may then charge an answer never given. The response's end writes the row's final status and time, with
// the request log's batch. An answer whose client is gone before it is written, or whose
// connection closes before it is all written, is refunded.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestLogRow } from '../accounts/request-log.js';
import type { Caller } from '../accounts/gate.js';
import { CLIENT_GONE, type KeptCharge, type Settlement } from '../accounts/settlement.js';
import type { Clock } from '../clock.js';
import { callRecord, logRow, type CallRecord } from './call-record.js';
import type { ErrorLog } from './error-log.js';
import { ApiError } from './errors.js';

/** An answer as it will be written. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly type: string;
  readonly body: string;
}

/** The 500 of a charged answer that could not be kept: it is not sent, and not charged. */
export const notKept = (): ApiError =>
  new ApiError(
    'internal_error',
    'The answer could not be recorded, so it was not sent and you were not charged. Retry with backoff.',
  );

export class Delivery {
  constructor(
    private readonly settlement: Settlement,
    private readonly clock: Clock,
    private readonly errors: ErrorLog,
    /** Logs a request the response's end will not (its connection is gone). */
    private readonly log: (row: RequestLogRow) => void,
  ) {}

  /**
   * Starts keeping a request's one charge as its handler starts (the pipeline's early keep): send() then waits for
   * it, or the pipeline's failure path refunds it.
   */
  begin(
    req: FastifyRequest,
    reply: FastifyReply,
    surface: CallRecord['surface'],
    caller: Caller,
    charge: number,
  ): void {
    const log = logRow(req, reply, 200, this.clock, callRecord(caller, 1, surface));
    this.settlement.keepEarly({ log, charges: [{ ledgerId: charge, idempotency: null }] });
  }

  /**
   * Writes `answer`, keeping `charges` first. When they cannot be kept (a reservation the sweeper released, the
   * database down), `unkept()` is written instead, free.
   */
  async send(
    req: FastifyRequest,
    reply: FastifyReply,
    charges: readonly KeptCharge[],
    answer: Answer,
    unkept: () => Answer,
  ): Promise<FastifyReply> {
    const entries = charges.map((c) => c.ledgerId);
    if (entries.length === 0) return write(reply, answer);
    if (clientGone(req, reply)) {
      await this.settlement.release(req.id, entries, CLIENT_GONE);
      this.uncharge(req);
      this.log(logRow(req, reply, CLIENT_GONE, this.clock));
      if (req.call) req.call.logged = true;
      return reply.code(CLIENT_GONE).send();
    }
    let kept = false;
    try {
      kept = await this.settlement.keep({ log: logRow(req, reply, answer.status, this.clock), charges });
    } catch (err) {
      // Committed or not, nobody can tell: refunded either way (the answer is not sent).
      this.errors.error(err, { request_id: req.id }, 'keeping an answer failed; it is refunded, not sent');
      await this.settlement.undelivered(req.id, entries);
    }
    if (!kept) {
      this.uncharge(req);
      return write(reply, unkept());
    }
    // The connection may have closed while the keep was written (its 'close' then already passed): refunded.
    if (clientGone(req, reply)) {
      await this.settlement.undelivered(req.id, entries);
      this.uncharge(req);
      if (req.call) req.call.logged = true;
      return reply.code(CLIENT_GONE).send();
    }
    // Not marked logged: the response's end gives the row the keep wrote its final status and time (request-log.ts).
    // 'finish': the last byte is handed to the operating system; a close before it cut the answer short.
    let finished = false;
    reply.raw.once('finish', () => (finished = true));
    reply.raw.once('close', () => {
      if (!finished) void this.settlement.undelivered(req.id, entries);
    });
    return write(reply, answer);
  }

  private uncharge(req: FastifyRequest): void {
    if (req.call) req.call.credits = 0;
  }
}

/** The client closed its connection (or the request could not be read to its end) before the answer. */
function clientGone(req: FastifyRequest, reply: FastifyReply): boolean {
  const socket = req.raw.socket as { destroyed?: boolean; writableEnded?: boolean } | null;
  // Not req.raw.destroyed: a request whose body was read to its end is destroyed, its connection alive.
  return (
    reply.raw.destroyed ||
    reply.raw.writableEnded ||
    socket?.destroyed === true ||
    // Ended by hand: the request could not be read (transport-errors.ts answered it).
    socket?.writableEnded === true
  );
}

function write(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).type(answer.type).send(answer.body);
}
