// Contract 5.5: "When credentials are missing or invalid, the response is 401." An operation that
// requires credentials (every alternative of its security requirement, or of the root's when it
// has none, names at least one scheme) must declare a 401 response.
export default function CredentialedOperation401() {
  let rootSecurity;
  return {
    Root: {
      enter(root) {
        rootSecurity = root.security;
      },
    },
    Operation: {
      enter(operation, ctx) {
        const security = operation.security ?? rootSecurity ?? [];
        const requiresCredentials =
          Array.isArray(security) && security.length > 0 && security.every((alt) => alt && Object.keys(alt).length > 0);
        if (!requiresCredentials) return;
        if (!operation.responses || !('401' in operation.responses)) {
          ctx.report({
            message: 'An operation that requires credentials must declare a 401 response (contract 5.5).',
            location: ctx.location.child(['responses']).key(),
          });
        }
      },
    },
  };
}
