/** Parent and inspiration selection, and which island an iteration works on (design section 7). */
export {
  InspirationConfigSchema,
  resolveInspirationConfig,
  resolveSelectionConfig,
  SelectionConfigSchema,
  type InspirationConfig,
  type InspirationInput,
  type SelectionConfig,
  type SelectionInput,
} from './config.js';
export { selectParent, type ParentChoice, type SelectionMode } from './parent.js';
export { selectInspirations } from './inspirations.js';
export { islandForIteration } from './island-schedule.js';
