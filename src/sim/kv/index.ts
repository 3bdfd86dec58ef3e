/** KV directory: block residency per node and tier, reference counts, eviction, prefix matching. */
export { KvDirectory } from './directory.js';
export { MAX_DIRECTORY_BLOCK_ID, MAX_NODES } from './types.js';
export type { EvictionOrder, KvDirectoryOptions, KvStats, PrefixMatch, Tier } from './types.js';
