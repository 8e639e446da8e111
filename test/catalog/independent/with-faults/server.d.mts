export interface FaultEntry {
  name: string;
  suite: 'auth' | 'validation' | 'ranges' | 'schema' | 'stateful' | 'cors' | 'robustness' | 'ratelimit';
  contract: string;
  description: string;
  includeDestructive?: boolean;
  /** Why the runner does not judge this one (the contract leaves it open, or a documented limit). */
  unjudged?: string;
}
export interface IndependentFixtures {
  api_key: string;
  user_id: string;
  org_id: string;
  recipient_list_id: string;
  api_key_id: string;
  channels: [string, string];
}
export interface IndependentServer {
  url: string;
  fixtures: IndependentFixtures;
  close(): Promise<void>;
}
export interface VariantEntry {
  name: string;
  contract: string;
  description: string;
  /** also run the ratelimit suite against it */
  ratelimit?: boolean;
}
export declare const FAULTS: FaultEntry[];
export declare const VARIANTS: VariantEntry[];
export declare function start(options?: {
  host?: string;
  port?: number;
  rateLimit?: number;
  rateWindowMs?: number;
  fault?: string;
  variant?: string;
}): Promise<IndependentServer>;
