// Contract 8: the three X-RateLimit-* headers are one definition each. A response that carries a
// rate-limit header must $ref the shared `#/components/headers/<name>` of the same name, never an
// inline copy or another definition, and carries all three together.
const RATE_LIMIT = /^x-ratelimit-/i;
const NAMES = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** Where a $ref finally lands (following a chain of refs), as file#pointer. */
function where(ctx, value) {
  let resolved = ctx.resolve(value);
  for (let hops = 0; resolved.node && typeof resolved.node.$ref === 'string' && hops < 16; hops++) {
    resolved = ctx.resolve(resolved.node, resolved.location.source.absoluteRef);
  }
  return resolved.location ? key(resolved.location) : undefined;
}

const key = (location) => `${location.source.absoluteRef} ${location.pointer}`;

export default function SharedRateLimitHeaders() {
  const shared = new Map();
  return {
    Root: {
      enter(root, ctx) {
        const headers = root.components?.headers ?? {};
        for (const name of NAMES) {
          if (headers[name]) {
            const header = headers[name];
            shared.set(name, typeof header.$ref === 'string' ? where(ctx, header) : key(ctx.location.child(['components', 'headers', name])));
          }
        }
      },
    },
    Response: {
      enter(response, ctx) {
        const headers = response?.headers;
        if (!headers || typeof headers !== 'object') return;
        const present = Object.keys(headers).filter((h) => RATE_LIMIT.test(h));
        if (present.length === 0) return;
        for (const name of present) {
          const header = headers[name];
          const target = NAMES.find((n) => n.toLowerCase() === name.toLowerCase());
          const location = ctx.location.child(['headers', name]);
          if (!target || !shared.has(target)) {
            ctx.report({ message: `\`${name}\` has no shared definition under #/components/headers.`, location: location.key() });
          } else if (!header || typeof header.$ref !== 'string') {
            ctx.report({ message: `\`${name}\` must be a $ref to #/components/headers/${target}, not an inline definition.`, location });
          } else if (where(ctx, header) !== shared.get(target)) {
            ctx.report({ message: `\`${name}\` must reference #/components/headers/${target}.`, location });
          }
        }
        const missing = NAMES.filter((n) => !present.some((p) => p.toLowerCase() === n.toLowerCase()));
        if (missing.length > 0) {
          ctx.report({
            message: `A response with rate-limit headers carries all three; missing: ${missing.join(', ')}.`,
            location: ctx.location.child(['headers']).key(),
          });
        }
      },
    },
  };
}
