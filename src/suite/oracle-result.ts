import type { SplitRun } from './split-run.js';
import type { StaticBest, WindowOracle } from './window-oracle.js';

/** One scenario's oracles as computed and cached (cache.ts validates this shape on read). */
export interface OracleResult {
  /** ORACLE_FORMAT of the code that wrote it. */
  format: number;
  key: string;
  name: string;
  seed: number;
  contentHash: string;
  codeVersion: string;
  capFactor: number;
  candidates: number;
  staticBest: StaticBest;
  window: WindowOracle;
  /** Every candidate's run, in candidate order. */
  runs: SplitRun[];
}
