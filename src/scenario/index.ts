/**
 * Scenario files (evaluator/scenarios/*.json, design section 9): the schema,
 * the loader, and the evaluator snapshot of a scenario. Depends on sim,
 * workload and evaluate; nothing below it depends on it.
 */
export { ScenarioFileSchema, spotSchema, membershipChangeSchema, type ScenarioFile, type ScenarioFileInput, type SpotSpec } from './schema.js';
export { listScenarios, loadScenario, scenariosDir, canonicalJson, type LoadedScenario } from './load.js';
export { scenarioSnapshot, withRunOverrides, isTraceWorkload } from './snapshot.js';
export { generateSpotTimeline } from './spot.js';
