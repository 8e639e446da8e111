import type { RunEvents } from '../../results/events.js';
import type { Observation } from '../../results/model.js';
import type { Secrets } from '../../secrets/index.js';
import { sanitizeObservation } from '../../secrets/report.js';

/** The run's observations: scrubbed of secrets, each said once, announced as they come. */
export class ObservationLog {
  readonly list: Observation[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly secrets: Secrets,
    private readonly events: RunEvents | undefined,
  ) {}

  add(observation: Omit<Observation, 'id'> & { id?: string }, fallbackId: string): void {
    const given: Observation = { id: observation.id ?? fallbackId, message: observation.message };
    if (observation.operation !== undefined) given.operation = observation.operation;
    const full = sanitizeObservation(given, this.secrets);
    const key = `${full.id}|${full.operation ?? ''}|${full.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(full);
    this.events?.onObservation?.(full);
  }
}
