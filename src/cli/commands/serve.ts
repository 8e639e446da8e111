import type { Command } from 'commander';
import type { CommandContext } from '../main.js';

/** vapc serve: not built yet (see the issues). */
export function registerServeCommand(_program: Command, _ctx: CommandContext): void {}
