/** bench:sim's scenario (cc, 126 agents, 9 nodes, 4P5D, 30 + 60 min, seed 1; evolving-infra by default): what bench:sim runs and what bench:kv-replay records. */
export const BENCH_SIM_SCENARIO = { workload: 'cc', agents: 126, nodes: 9, split: '4P5D', warmupMinutes: 30, minutes: 60, seed: 1 };
