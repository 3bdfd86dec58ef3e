import { describe, expect, it } from 'vitest';
import { openLineageStore } from '../../src/store/index.js';
import { evaluated, tempDbPath } from './helpers.js';

describe('LineageStore.transaction', () => {
  it('commits every write of fn together, or none when fn throws', () => {
    const path = tempDbPath();
    const store = openLineageStore(path);
    try {
      const run = store.transaction(() => {
        const id = store.createRun({ config: { mode: 'serve' }, seed: 1 });
        store.saveRunState(id, { settings: { a: 1 } });
        return id;
      });
      expect(store.loadRunState(run)).toEqual({ settings: { a: 1 } });
      expect(() =>
        store.transaction(() => {
          const id = store.createRun({ config: { mode: 'serve' }, seed: 2 });
          store.insertCandidate({ ...evaluated(), run: id, iteration: 0 });
          // The reserved key is refused: the run and its candidate above must vanish with it.
          store.saveRunState(id, { iteration: 3 });
        }),
      ).toThrow(/iteration/);
      expect(store.listRuns().map((r) => r.id)).toEqual([run]);
      expect(store.countCandidates()).toBe(0);
    } finally {
      store.close();
    }
  });

  it('a transaction inside another joins it: an outer failure undoes the inner writes', () => {
    const store = openLineageStore(tempDbPath());
    try {
      expect(() =>
        store.transaction(() => {
          store.transaction(() => store.createRun({ config: {}, seed: 1 }));
          throw new Error('outer fails');
        }),
      ).toThrow('outer fails');
      expect(store.listRuns()).toEqual([]);
    } finally {
      store.close();
    }
  });
});
