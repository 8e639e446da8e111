// Contract 2 and 4.4: JSON members are snake_case; the create body's `scheduleStartTime` and
// `scheduleEndTime` are the documented exceptions (option `allow`).
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

export default function SnakeCaseProperties(options = {}) {
  const allow = new Set(options.allow ?? []);
  return {
    Schema: {
      enter(schema, ctx) {
        if (!schema || typeof schema.properties !== 'object' || schema.properties === null) return;
        for (const name of Object.keys(schema.properties)) {
          if (SNAKE_CASE.test(name) || allow.has(name)) continue;
          ctx.report({
            message: `Property \`${name}\` is not snake_case (only ${[...allow].map((a) => `\`${a}\``).join(', ') || 'no name'} may differ).`,
            location: ctx.location.child(['properties', name]).key(),
          });
        }
      },
    },
  };
}
