// What an event is (docs/webhooks.md, "Events"): its types and its stable id.
import { randomUUID } from 'node:crypto';

export const EVENT_TYPES = [
  'entity.created',
  'entity.updated',
  'saved_search.match',
  'match_job.completed',
  'export.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number] | 'ping';

/** A receiver deduplicates on this id: every retry and replay of an event carries the same one. */
export const eventId = (): string => `evt_${randomUUID().replaceAll('-', '')}`;
