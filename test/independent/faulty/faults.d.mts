export type { FaultEntry } from './server.mjs';
import type { FaultEntry } from './server.mjs';
export declare const FAULTS: FaultEntry[];
