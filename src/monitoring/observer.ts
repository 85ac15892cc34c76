// Monitoring as the importer's observer (src/registry/import/observer.ts): the events of each change,
// written in the change's transaction (docs/webhooks.md, "Events").
import type { ImportObserver } from '../registry/import/observer.js';
import { filingEventsOfWatched } from './outbox.js';
import { watchCorporateSnapshot, watchEventSnapshot } from './snapshot.js';
import { corporateChangeEvents } from './touched.js';

export const monitoringObserver: ImportObserver = {
  name: 'monitoring',
  async corporateApplied(client, file) {
    const found = await corporateChangeEvents(client, file);
    return found && { written: found.events, judged: found.judged };
  },
  eventsRead: async (client, file) => ({ written: await filingEventsOfWatched(client, file) }),
  snapshotStaged: (client, kind, staged, step) =>
    kind === 'corporate' ? watchCorporateSnapshot(client, staged, step) : watchEventSnapshot(client, staged, step),
};
