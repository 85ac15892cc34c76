// Parameter schemas shared by the operations. Each accepts what REST sends (strings, repeated or
// comma-separated values) and what MCP sends (JSON numbers and arrays), and describes itself for
// OpenAPI and MCP through its JSON Schema.
import { z } from 'zod';
import { canonicalCounty } from '../registry/counties.js';

/** `limit` for an endpoint: 1 or more, clamped to `max` (pagination.limit reports the value used). */
export function limit(def: number, max: number) {
  return z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(1, { error: 'must be at least 1' })
    .transform((n) => Math.min(n, max))
    .default(def)
    .meta({ description: `Page size, ${def} by default; values above ${max} are clamped to ${max}.`, maximum: max });
}

/**
 * The deepest offset a page may start at: deeper pages cost more with every row skipped (offset 400,000 of a city
 * took 854 ms at 12.6 million entities), where a cursor's page costs what the first does.
 */
const OFFSET_MAX = 10_000;

const offset = z.coerce
  .number({ error: 'must be an integer' })
  .int({ error: 'must be an integer' })
  .min(0, { error: 'must not be negative' })
  .max(OFFSET_MAX, {
    error: `must be at most ${OFFSET_MAX}: read further with cursor (each page's pagination.next_cursor)`,
  })
  .optional()
  .meta({ description: `Rows to skip (0 by default, at most ${OFFSET_MAX}); to read further, use cursor.` });

const cursor = z
  .string({ error: 'must be a single text value' })
  .max(2000, { error: 'must be at most 2000 characters' })
  .regex(/^[\w-]+\.[\w-]+$/, {
    error: 'is not a cursor of this service: pass pagination.next_cursor as a page gave it',
  })
  .optional()
  .meta({
    description:
      "The previous page's pagination.next_cursor: the next page of the same query, however deep " +
      '(not with offset). A walk reads the data as it was at its first page.',
  });

export const pagination = (def: number, max: number) => ({ limit: limit(def, max), offset, cursor });

/**
 * Text the database can hold: PostgreSQL text has no NUL character, so one in a parameter is the
 * caller's error (a 400 naming it), never a failed query.
 */
const storable = (s: string): boolean => !s.includes('\0');
const NOT_STORABLE = { error: 'must not contain a NUL character' };

/** Free text of `min` to `max` characters (surrounding blanks ignored). */
export const text = (min: number, max: number, description: string) =>
  z
    .string({ error: 'must be a single text value' })
    .trim()
    .min(min, { error: min === 1 ? 'must not be empty' : `must be at least ${min} characters` })
    .max(max, { error: `must be at most ${max} characters` })
    .refine(storable, NOT_STORABLE)
    .meta({ description });

/** A calendar date `YYYY-MM-DD` that exists. */
export const isoDate = (description: string) =>
  z.iso.date({ error: 'must be a date YYYY-MM-DD that exists' }).meta({ description });

export const documentNumber = z
  .string()
  .regex(/^[A-Za-z0-9]{6,12}$/, { error: 'must be 6 to 12 letters and digits' })
  .transform((s) => s.toUpperCase())
  .meta({ description: 'The registry document number, 6 to 12 letters and digits.', example: 'L23000448570' });

/** Exactly two letters, compared without case. */
export const twoLetters = (description: string) =>
  z
    .string({ error: 'must be a single text value' })
    .regex(/^[A-Za-z]{2}$/, { error: 'must be exactly 2 letters' })
    .transform((s) => s.toUpperCase())
    .meta({ description });

export const entityTypeCode = z
  .string()
  .max(20, { error: 'must be at most 20 characters' })
  .regex(/^[A-Z0-9]+$/, { error: 'must be an UPPERCASE registry code such as FLAL' });

/**
 * A multi-select: `a&a` (repeated), `a,b` (comma-separated) or a JSON array, each value checked
 * by `item`. Returns the distinct values.
 */
export function multi<T extends string>(item: z.ZodType<T, string>, description: string, values?: readonly string[]) {
  // `values` only documents the allowed values (checking is `item`'s, value by value, with its own message).
  const element = values ? z.string().meta({ enum: [...values] }) : z.string();
  return z
    .union([z.array(element), z.string()], { error: 'must be a text value or a list of them' })
    .transform((raw, ctx) => {
      const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim());
      const out: T[] = [];
      for (const v of values) {
        const r = item.safeParse(v);
        if (r.success) out.push(r.data);
        else
          ctx.addIssue({
            code: 'custom',
            message: `${JSON.stringify(v)}: ${r.error.issues[0]?.message ?? 'not allowed'}`,
          });
      }
      if (values.length === 0 || values.every((v) => v === ''))
        ctx.addIssue({ code: 'custom', message: 'must not be empty' });
      return [...new Set(out)];
    })
    .meta({ description: `${description} Several values: repeat the parameter or separate them with commas.` });
}

/** One of a fixed set of words. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` }).meta({ description });

/** One of Florida's 67 counties, as a user may write it; read as the county table spells it. */
export const county = z
  .string({ error: 'must be a single text value' })
  .max(40, { error: 'must be at most 40 characters' })
  .transform((v, ctx) => {
    const c = canonicalCounty(v);
    if (!c) ctx.addIssue({ code: 'custom', message: 'must be one of the 67 Florida counties' });
    return c ?? v;
  })
  .meta({
    description:
      'Florida county, ignoring case; a trailing "County" is ignored (Miami-Dade, St. Johns, Orange County).',
  });
