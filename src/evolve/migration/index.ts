/** Ring migration of each island's best (design section 7). */
export { MigrationConfigSchema, resolveMigrationConfig, type MigrationConfig, type MigrationInput } from './config.js';
export { isMigrationIteration, ringMigrate, type Migration } from './ring.js';
