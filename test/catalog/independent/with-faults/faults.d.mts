export type { FaultEntry, VariantEntry } from './server.mjs';
import type { FaultEntry, VariantEntry } from './server.mjs';
export declare const FAULTS: FaultEntry[];
export declare const FAULTS_ROUND2: FaultEntry[];
export declare const FAULTS_ROUND3: FaultEntry[];
export declare const VARIANTS: VariantEntry[];
