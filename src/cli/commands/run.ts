import type { Command } from 'commander';
import type { CommandContext } from '../main.js';

/** vapc run: not built yet (see the issues). */
export function registerRunCommand(_program: Command, _ctx: CommandContext): void {}
