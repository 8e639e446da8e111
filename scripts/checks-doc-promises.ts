/**
 * The "Promises kept over time" section of docs/checks.md (issue 23), kept apart from the page's
 * generator so the two can change independently: what one answer of the contract implies about a
 * later one, which check holds the server to it, and what the contract does not promise.
 */
export const PROMISES_SECTION = `## Promises kept over time

Some answers promise something about later ones. Each promise the contract really states is
checked by watching what comes after; what it does not state is not judged.

| promise | where the contract states it | check |
|---|---|---|
| A partial update changes what it is sent and keeps the rest: after a PATCH of one field, every other field the update accepts reads back unchanged (in the PATCH answer and with GET); a PATCH with an empty body changes nothing | 4.4 (an update body of optional fields, none required: 4.2), PATCH being a partial update | \`stateful.update-keeps-unsent\` (its own record, created with every documented field: create, PATCH one field, PATCH \`{}\`, GET) |
| \`X-RateLimit-Reset\` says when the key works again: after a 429, once the advertised reset has passed, the next request is served with \`X-RateLimit-Remaining\` back near the limit (within a tenth of it). The wait is at most 65 s; a Reset in whole seconds gets one more second, since it may be rounded down | 8 | \`ratelimit.reset-honoured\` (after the burst; a 429 after the reset fails naming the Reset value the 429 gave) |
| \`X-RateLimit-Remaining\` never goes up within a window (a new window shows as a Reset that moves on) | 8 | \`ratelimit.burst-429\` (every answer of the burst), \`ratelimit.remaining-decreases\` |
| A created campaign reads back as created | 4.2, 4.3 | \`stateful.get-returns-created\` |
| An update is stored | 4.3, 4.4 | \`stateful.update-persists\` |
| A regenerated key is the new key and works | 2.7, 4.9 | \`stateful.regenerate-key\` (the run carries on with it) |

Not stated, so not judged (an observation at most): when the old key stops working after a
regeneration (4.9 says only that the key is regenerated), whether an invite token is returned once
(2.5 says only that it is secret-bearing), and whether created records appear in a list (the
contract lists no campaigns, recipients or invites; \`GET /calls\` lists calls, which no specified
operation creates).
`;
