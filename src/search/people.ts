// Officer search (one row per officer slot and entity) and registered-agent search (one row per
// agent: normalized name and ZIP5, with the number of entities it serves).
import type pg from 'pg';
import { matchesAllWords } from './expand.js';
import { nameKey, personKey, sortedWords } from './normalize.js';
import { pageQuery, toPage, type Page, type PageRequest } from './paging.js';
import { Sql } from './sql.js';

export interface OfficerHit {
  officer_name: string;
  title_code: string;
  document_number: string;
  entity_name: string;
}

export interface AgentHit {
  agent_name: string;
  linked_entity_count: number;
  city: string;
  state: string;
  zip: string;
}

/** A name condition: 1 or 2 characters match the start of the name, longer ones match by words. */
function nameCondition(sql: Sql, dictionary: 'officer_words' | 'agent_words', words: string[], norm: string, columns: { words: string; norm: string }): string {
  if (norm.length > 0 && norm.length <= 2) return `${columns.norm} LIKE ${sql.p(norm)} || '%'`;
  return matchesAllWords(sql, dictionary, columns.words, words);
}

/** Exact (either word order), then prefix, then trigram similarity (which ignores word order). */
function relevance(sql: Sql, sorted: string, norm: string, columns: { sorted: string; norm: string }): string {
  const n = sql.p(norm);
  return `CASE WHEN ${columns.sorted} = ${sql.p(sorted)} THEN 0 WHEN ${columns.norm} LIKE ${n} || '%' THEN 1 ELSE 2 END, similarity(${columns.norm}, ${n}) DESC`;
}

export async function searchOfficers(pool: pg.Pool, q: PageRequest & { name?: string; title?: string }): Promise<Page<OfficerHit>> {
  const sql = new Sql();
  const where: string[] = [];
  let order = 'document_number ASC, slot ASC';
  if (q.name !== undefined) {
    const key = personKey(q.name);
    where.push(nameCondition(sql, 'officer_words', key.words, key.norm, { words: 'o.name_words', norm: 'o.name_norm' }));
    order = `${relevance(sql, key.sorted, key.norm, { sorted: 'name_sorted', norm: 'name_norm' })}, name ASC, document_number ASC, slot ASC`;
  }
  if (q.title !== undefined) where.push(`o.title = upper(${sql.p(q.title)})`);
  const matches = `SELECT o.entity_id, o.document_number, o.slot, o.title, o.name, o.name_norm, o.name_sorted FROM registry.officers o
                   ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  const hit = `page.name AS officer_name, page.title AS title_code, page.document_number,
               (SELECT e.name FROM registry.entities e WHERE e.id = page.entity_id) AS entity_name`;
  const { rows } = await pool.query(pageQuery(matches, order, hit, sql.p(q.limit), sql.p(q.offset)), sql.params);
  return toPage<OfficerHit>(rows[0]);
}

/** An agent's words: a company's without its weak words, else a person's. */
export function agentWords(input: string): string[] {
  const company = nameKey(input).words;
  return company.length > 0 ? company : personKey(input).words;
}

export async function searchAgents(pool: pg.Pool, q: PageRequest & { name?: string }): Promise<Page<AgentHit>> {
  const sql = new Sql();
  const where: string[] = [];
  let order = 'entity_count DESC, name ASC, zip5 ASC';
  if (q.name !== undefined) {
    const words = agentWords(q.name);
    const norm = nameKey(q.name).norm;
    where.push(nameCondition(sql, 'agent_words', words, norm, { words: 'a.name_words', norm: 'a.agent_key' }));
    order = `${relevance(sql, sortedWords(words), norm, { sorted: 'name_sorted', norm: 'agent_key' })}, ${order}`;
  }
  const matches = `SELECT a.agent_key, a.zip5, a.name, a.city, a.state, a.entity_count, a.name_sorted FROM registry.agents a
                   ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  const hit = `page.name AS agent_name, page.entity_count AS linked_entity_count, coalesce(page.city, '') AS city,
               coalesce(page.state, '') AS state, page.zip5 AS zip`;
  const { rows } = await pool.query(pageQuery(matches, order, hit, sql.p(q.limit), sql.p(q.offset)), sql.params);
  return toPage<AgentHit>(rows[0]);
}
