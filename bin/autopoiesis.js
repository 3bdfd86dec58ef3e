#!/usr/bin/env -S node --no-node-snapshot
// Launcher: isolated-vm on Node 20 needs --no-node-snapshot (passed by the shebang).
import { runCli } from '../dist/src/cli/main.js';

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
