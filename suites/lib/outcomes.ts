/** The generic outcomes (judgements, `Findings`) live in src/checks/outcomes.ts; re-exported for the suites' own helpers. */
export * from '../../src/checks/outcomes.js';
