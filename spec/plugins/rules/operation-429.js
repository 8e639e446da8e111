// Contract 8: "When the limit is exceeded, the response is 429", and the contract names no
// operation exempt from rate limiting, so every operation declares 429.
export default function Operation429() {
  return {
    Operation: {
      enter(operation, ctx) {
        if (!operation.responses || !('429' in operation.responses)) {
          ctx.report({
            message: 'Every operation must declare a 429 response (contract 8: no operation is exempt from rate limiting).',
            location: ctx.location.child(['responses']).key(),
          });
        }
      },
    },
  };
}
