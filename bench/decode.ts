/**
 * Closed-form decode throughput: how many DecodeBatch.advance operations per
 * second one node's batch sustains, driven the way the simulator drives it
 * (advance to nextEventTime, re-join a new request for each finish, as in a
 * closed loop of agents). Also prints how many iterations each advance
 * covers, i.e. what stepping iteration by iteration would have cost.
 *
 *   npx tsc -p . && node dist/bench/decode.js
 */
import { Rng } from '../src/common/rng.js';
import { DecodeBatch } from '../src/sim/perf/decode-batch.js';
import { IterationTruth } from '../src/sim/perf/truth.js';
import { coefficientsFor, loadModel, loadNodeKind } from '../src/sim/profiles/index.js';

const kind = loadNodeKind('gb300');
const model = loadModel('glm-5.2');

function run(concurrency: number, finishes: number): void {
  const truth = new IterationTruth(coefficientsFor(model, kind), new Rng(1));
  const rng = new Rng(2);
  const db = new DecodeBatch({
    iterTime: (b, ctx) => truth.decodeTime(b, ctx),
    tokensPerIteration: model.speculative.tokensAccepted,
    maxBatch: kind.batch.maxDecodeRequests,
  });
  let id = 0;
  const newRequest = (t: number) => db.join(t, id++, rng.int(20, 2000), rng.int(5_000, 120_000));
  for (let i = 0; i < concurrency; i++) newRequest(0);

  let ops = 0;
  let done = 0;
  let iterations = 0;
  let t = 0;
  const start = process.hrtime.bigint();
  while (done < finishes) {
    const epoch = db.currentEpoch();
    t = db.nextEventTime();
    if (epoch) iterations += Math.round((t - epoch.startedAt) / epoch.iterationTime);
    const out = db.advance(t);
    ops++;
    for (const _ of out) {
      done++;
      newRequest(t);
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(
    `B~${String(concurrency).padStart(3)}: ${ops} advances in ${seconds.toFixed(3)} s = ${Math.round(ops / seconds).toLocaleString('en-US')} advances/s; ` +
      `${done} finishes, ${t.toFixed(0)} simulated s, ${(iterations / ops).toFixed(1)} iterations per advance`,
  );
}

for (const b of [8, 32, 64, 128]) run(b, 200_000);
