import type { Command } from 'commander';
import type { CommandContext } from '../main.js';

/** vapc report: not built yet (see the issues). */
export function registerReportCommand(_program: Command, _ctx: CommandContext): void {}
