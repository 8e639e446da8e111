// Contract 8: "Rate-limit response headers (present in responses)", with no operation exempt, so
// every success (2xx) response of an operation declares the three X-RateLimit-* headers.
const NAMES = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

export default function SuccessRateLimitHeaders() {
  return {
    Operation: {
      enter(operation, ctx) {
        for (const [status, raw] of Object.entries(operation.responses ?? {})) {
          if (!/^2(\d\d|XX)$/i.test(status)) continue;
          const response = raw && raw.$ref ? ctx.resolve(raw).node : raw;
          const names = Object.keys(response?.headers ?? {}).map((h) => h.toLowerCase());
          const missing = NAMES.filter((n) => !names.includes(n.toLowerCase()));
          if (missing.length > 0) {
            ctx.report({
              message: `Success response ${status} must declare the rate-limit headers; missing: ${missing.join(', ')}.`,
              location: ctx.location.child(['responses', status]).key(),
            });
          }
        }
      },
    },
  };
}
