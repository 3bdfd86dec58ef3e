import { InputError } from '../common/errors.js';
import { parseSchedCost } from '../evaluate/index.js';
import { buildMutator, loadSeeds, type BackendFactory, type SeedPolicy } from '../evolve/engine/index.js';
import type { Mutator } from '../evolve/mutators/index.js';
import { openLineageStore, type CycleRecord, type DeploymentRecord, type JsonValue, type LineageStore } from '../store/index.js';
import { resolveControlPlaneConfig, type ControlPlaneConfig, type ControlPlaneConfigInput } from './config.js';
import { recordDeployment, recordRollback, registerPolicy, type DeploymentInput, type PolicyOrigin, type RollbackInput } from './deployments.js';
import { classifyFailure } from './failure.js';
import { executeCycle } from './run-cycle.js';
import { nextDelayMs, pause, wallClock } from './loop-timing.js';
import { loadControlState, saveSimSeconds, simSecondsReached, type ControlState, type WarmElite } from './state.js';
import type { CycleOutcome, CycleProgress, DeployedProvider, SimClock, SnapshotProvider, Stager } from './types.js';

/** The runs.config key that marks a run as a `serve` run (the database may also hold `evolve` runs). */
const SERVE_MODE = 'serve';

export interface ControlPlaneOptions {
  dbPath: string;
  /** Continue the latest serve run of the database instead of starting one. */
  resume?: boolean;
  /** A new run: the settings (defaults for the rest). On resume: replaces the stored settings when given. */
  config?: ControlPlaneConfigInput;
  /**
   * A new run only: written in the same transaction as the run itself, so a
   * process killed while starting leaves either nothing or a run that can be
   * resumed. `state`: the caller's settings (see saveSettings); `policy`: the
   * starting policy, registered and deployed at simulated time 0.
   */
  start?: { state?: Record<string, JsonValue>; policy?: { name: string; code: string; reason?: string } };
  /** The data plane's recorded window, as a Snapshot (may be async, may throw). */
  snapshot: SnapshotProvider;
  /** The policy serving now. */
  deployed: DeployedProvider;
  /** Writes a winner to the staging folder atomically (the data plane's stagePolicy). */
  stage: Stager;
  /** Simulated seconds of the served cluster; default: wall seconds since open (plus the time reached, on resume). */
  clock?: SimClock;
  /** Called after every cycle of the background loop (exceptions are caught and logged). */
  onCycle?: (outcome: CycleOutcome) => void;
  /** One line per event (cycle start, failure, backoff). */
  log?: (line: string) => void;
  /** Where candidates are evaluated (default: a local pool per cycle; serve --queue: BullMQ workers). Not stored with the run. */
  backend?: BackendFactory;
}

/** Where a reopened run stands, for `serve --resume`. */
export interface ResumeState {
  /** The deployment serving when the process stopped (latest not rolled back), if any. */
  deployment: DeploymentRecord | null;
  /** Its code, to hand back to the data plane. */
  deployedCode: string | null;
  /** The simulated time the run had reached. */
  simSeconds: number;
  /** Cycles found 'running' (the process died during them), now 'interrupted'. */
  interruptedCycles: number[];
  /** The elites the next cycle starts from. */
  warmStart: WarmElite[];
  nextIteration: number;
}

/**
 * The control plane (design section 1): evolution cycles on snapshots of
 * the data plane's window, in the background, in worker threads, so the
 * caller's thread (the data plane's paced loop) keeps its timing. A cycle
 * whose best beats the deployed policy on the same snapshot by the margin
 * stages it; every cycle and deployment is in the lineage database.
 *
 * Nothing a cycle does can stop serving: runCycle never rejects, and the
 * background loop goes on after any failure, with a backoff.
 */
export class ControlPlane {
  private loop: Promise<void> | undefined;
  /** Aborted by stop(): ends the loop and the cycle in progress; replaced once they have ended. */
  private stopping = new AbortController();
  private current: Promise<CycleOutcome> | undefined;
  private closed = false;
  private progress: CycleProgress | null = null;

  private constructor(
    private readonly store: LineageStore,
    readonly runId: number,
    readonly config: ControlPlaneConfig,
    private readonly mutator: Mutator,
    private readonly seeds: readonly SeedPolicy[],
    private readonly state: ControlState,
    private readonly options: ControlPlaneOptions,
    private readonly clock: SimClock,
    /** Set when the run was reopened. */
    readonly resumed: ResumeState | null,
  ) {}

  /**
   * Start a serve run in the database, or reopen the latest one (resume):
   * cycles left 'running' by a killed process become 'interrupted', the
   * warm start is restored, and `resumed` tells what was deployed and the
   * simulated time reached. Bad settings (InputError, UsageError) are
   * reported before the database is touched.
   */
  static async open(options: ControlPlaneOptions): Promise<ControlPlane> {
    const log = options.log ?? (() => {});
    if (!options.resume) {
      // Everything that can reject the settings comes before the database is
      // touched, so that bad flags leave no run (and no file) behind.
      const config = resolveControlPlaneConfig(options.config ?? {});
      const { mutator, seeds } = prepare(config);
      const store = openLineageStore(options.dbPath);
      try {
        // The API key stays out of the file (a resumed run reads it from the environment again).
        const { apiKey: _key, ...llm } = config.llm;
        const start = options.start;
        const runId = store.transaction(() => {
          const id = store.createRun({ name: null, config: { mode: SERVE_MODE, ...config, llm }, seed: config.seed });
          if (start?.state) store.saveRunState(id, start.state);
          if (start?.policy) {
            const candidateId = registerPolicy(store, id, 0, start.policy, 'deployed');
            recordDeployment(store, id, { candidateId, at: 0, reason: start.policy.reason ?? 'starting policy' });
          }
          return id;
        });
        const state: ControlState = { nextIteration: 0, warmStart: [] };
        return new ControlPlane(store, runId, config, mutator, seeds, state, options, options.clock ?? wallClock(0), null);
      } catch (error) {
        store.close();
        throw error;
      }
    }
    const store = openLineageStore(options.dbPath, { create: false });
    try {
      const run = store
        .listRuns()
        .filter((r) => r.config.mode === SERVE_MODE)
        .at(-1);
      if (!run) throw new InputError('no serve run to resume in this database', { file: options.dbPath, field: '--resume' });
      const { mode: _mode, ...stored } = run.config;
      const config = options.config !== undefined ? resolveControlPlaneConfig(options.config) : resolveControlPlaneConfig(stored, `runs.${run.id}.config`);
      const { mutator, seeds } = prepare(config);
      store.reopenRun(run.id);
      const reached = simSecondsReached(store, run.id);
      const interruptedCycles = store.interruptRunningCycles(run.id, reached, 'the process ended during the cycle (found running on resume)');
      const state = loadControlState(store, run.id, config.warmStartCount);
      const deployment = store.currentDeployment(run.id) ?? null;
      const resumed: ResumeState = {
        deployment,
        deployedCode: deployment ? (store.getCandidate(deployment.candidate)?.code ?? null) : null,
        simSeconds: reached,
        interruptedCycles,
        warmStart: state.warmStart,
        nextIteration: state.nextIteration,
      };
      log(`resumed serve run ${run.id} at ${reached.toFixed(0)} s simulated, iteration ${state.nextIteration}, ${interruptedCycles.length} interrupted cycle(s)`);
      return new ControlPlane(store, run.id, config, mutator, seeds, state, options, options.clock ?? wallClock(reached), resumed);
    } catch (error) {
      store.close();
      throw error;
    }
  }

  /** The cycle in progress after its latest committed iteration; null between cycles. */
  get cycleInProgress(): CycleProgress | null {
    return this.progress;
  }

  /** Every deployment of the run, oldest first (serve --resume replays them). */
  deployments(): DeploymentRecord[] {
    return this.store.listDeployments(this.runId);
  }

  /** Every cycle of the run, oldest first. */
  cycles(): CycleRecord[] {
    return this.store.listCycles(this.runId);
  }

  /** Keep caller settings with the run (the serve command's workload and pacing), for --resume. */
  saveSettings(key: string, value: JsonValue): void {
    this.store.saveRunState(this.runId, { [key]: value });
  }

  /** Settings saved with saveSettings, or undefined. */
  loadSettings(key: string): JsonValue | undefined {
    return this.store.loadRunState(this.runId)[key];
  }

  /** The database file. */
  get dbPath(): string {
    return this.store.path;
  }

  /** Whether the background loop is on. */
  get running(): boolean {
    return this.loop !== undefined;
  }

  /**
   * Make a policy a candidate row of the run, so that deployments can name
   * it (see registerPolicy in deployments.ts): 'deployed' for a starting
   * policy, 'external' for one staged by hand. A policy whose code (up to
   * whitespace) already has a row in the run gets that row's id.
   */
  registerPolicy(policy: { name: string; code: string }, origin: PolicyOrigin = 'deployed'): number {
    return registerPolicy(this.store, this.runId, this.state.nextIteration - 1, policy, origin);
  }

  /** Whether a candidate id is a row of this run (a staged file may name one of another run, or none). */
  isCandidateOfRun(id: number): boolean {
    return this.store.getCandidate(id)?.run === this.runId;
  }

  /**
   * One cycle now (the background loop calls the same). Never rejects: a
   * failure is an outcome with status 'failed' and its reason. Aborting the
   * signal (or stop()) ends the cycle as 'interrupted'.
   */
  async runCycle(options: { signal?: AbortSignal } = {}): Promise<CycleOutcome> {
    if (this.closed) throw new Error('the control plane is closed');
    if (this.current) throw new Error('a cycle is already running');
    const signals = [options.signal, this.stopping.signal].filter((s): s is AbortSignal => s !== undefined);
    this.current = executeCycle(
      {
        store: this.store,
        runId: this.runId,
        config: this.config,
        schedCost: parseSchedCost(this.config.schedCost),
        mutator: this.mutator,
        seeds: this.seeds,
        snapshot: this.options.snapshot,
        deployed: this.options.deployed,
        stage: this.options.stage,
        clock: this.clock,
        state: this.state,
        log: (line) => this.log(line),
        backend: this.options.backend,
        onProgress: (progress) => {
          this.progress = progress;
        },
      },
      AbortSignal.any(signals),
    );
    try {
      return await this.current;
    } finally {
      this.progress = null;
      this.current = undefined;
    }
  }

  /** Run cycles in the background, back to back (or every intervalSeconds), with a backoff after failures. */
  start(): void {
    if (this.closed) throw new Error('the control plane is closed');
    if (this.loop) return;
    this.loop = this.backgroundLoop(this.stopping.signal);
  }

  /**
   * Stop the loop and any cycle in progress: it ends as 'interrupted' (its
   * iteration in flight is not written), its workers are closed, and the
   * database is left consistent. start() may be called again afterwards.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([this.loop, this.current]);
    this.loop = undefined;
    this.stopping = new AbortController();
  }

  /**
   * Stop, mark the run ended and close the database: 'interrupted' (the
   * default: serve can --resume it) or 'finished' (served its whole duration).
   */
  async close(status: 'interrupted' | 'finished' = 'interrupted'): Promise<void> {
    if (this.closed) return;
    await this.stop();
    this.closed = true;
    try {
      const reached = this.clock();
      this.store.transaction(() => {
        saveSimSeconds(this.store, this.runId, reached);
        this.store.finishRun(this.runId, status);
      });
    } catch (error) {
      this.log(`could not record the end of run ${this.runId}: ${classifyFailure(error).message}`);
    }
    this.store.close();
    await this.mutator.close?.();
  }

  // ---- deployments (called by serve when the data plane swaps or rolls back) ----

  /** Record that the data plane swapped a candidate in; see DeploymentInput for what is filled in. */
  recordDeployment(input: DeploymentInput): DeploymentRecord {
    return this.store.transaction(() => {
      const record = recordDeployment(this.store, this.runId, input);
      saveSimSeconds(this.store, this.runId, input.at);
      return record;
    });
  }

  /**
   * Record the deployment of a policy staged by hand (not a candidate of this
   * run): its code becomes an 'external' candidate row, then the deployment
   * names it, in one transaction. A rollback of it is recorded as any other.
   */
  recordExternalDeployment(input: { name: string; code: string; at: number; reason?: string }): DeploymentRecord {
    return this.store.transaction(() => {
      const candidateId = this.registerPolicy({ name: input.name, code: input.code }, 'external');
      const record = recordDeployment(this.store, this.runId, {
        candidateId,
        at: input.at,
        cycleId: null,
        fitnessOnSnapshot: null,
        reason: input.reason ?? `${input.name}, staged by hand`,
      });
      saveSimSeconds(this.store, this.runId, input.at);
      return record;
    });
  }

  /** Record a rollback of the current (or a given) deployment; returns it and what serves now. */
  recordRollback(input: RollbackInput): { rolledBack: DeploymentRecord; current: DeploymentRecord | undefined } {
    return this.store.transaction(() => {
      const result = recordRollback(this.store, this.runId, input);
      saveSimSeconds(this.store, this.runId, input.at);
      return result;
    });
  }

  /** What is serving according to the lineage (latest deployment not rolled back). */
  currentDeployment(): DeploymentRecord | undefined {
    return this.store.currentDeployment(this.runId);
  }

  /** A candidate's code (e.g. the deployment to restore on resume). */
  candidateCode(id: number): string | undefined {
    return this.store.getCandidate(id)?.code;
  }

  /** Save the simulated time reached (serve calls it now and then; resume reads it back). */
  recordSimTime(simSeconds: number): void {
    saveSimSeconds(this.store, this.runId, simSeconds);
  }

  /** The elites the next cycle will start from. */
  get warmStart(): readonly WarmElite[] {
    return this.state.warmStart;
  }

  // ---- the loop ----

  private async backgroundLoop(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      let outcome: CycleOutcome;
      try {
        outcome = await this.runCycle({ signal });
      } catch (error) {
        // runCycle does not reject; this would be a bug in it. Log and go on.
        this.log(`cycle loop: ${classifyFailure(error).message}`);
        failures++;
        await pause(this.config.backoffSeconds * 1000, signal);
        continue;
      }
      try {
        this.options.onCycle?.(outcome);
      } catch (error) {
        this.log(`onCycle handler threw: ${classifyFailure(error).message}`);
      }
      if (signal.aborted) break;
      failures = outcome.status === 'failed' ? failures + 1 : 0;
      const delay = nextDelayMs(outcome, failures, this.config);
      if (outcome.status === 'failed') this.log(`next cycle in ${(delay / 1000).toFixed(1)} s (${failures} failed in a row)`);
      await pause(delay, signal);
    }
  }

  private log(line: string): void {
    try {
      this.options.log?.(line);
    } catch {
      // a logger that throws must not stop the control plane
    }
  }
}

/** The mutator and seeds a config asks for: UsageError/InputError for bad ones. */
function prepare(config: ControlPlaneConfig): { mutator: Mutator; seeds: SeedPolicy[] } {
  // Off-thread: a structural mutation parses the policy several times (up to 100+ ms).
  const mutator = buildMutator({ mutator: config.mutator, llm: config.llm }, { offThread: true });
  parseSchedCost(config.schedCost);
  return { mutator, seeds: loadSeeds(config.seedsDir) };
}
