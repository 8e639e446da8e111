// Redocly plugin `vapc`: the conventions of the Voice-Agent Platform API contract as lint rules.
// One file per rule under rules/, the file name is the rule id; severities live in redocly.yaml.
import credentialedOperation401 from './rules/credentialed-operation-401.js';
import operation429 from './rules/operation-429.js';
import snakeCaseProperties from './rules/snake-case-properties.js';
import sharedRateLimitHeaders from './rules/shared-rate-limit-headers.js';
import successRateLimitHeaders from './rules/success-rate-limit-headers.js';

export default function vapcPlugin() {
  return {
    id: 'vapc',
    rules: {
      oas3: {
        'credentialed-operation-401': credentialedOperation401,
        'operation-429': operation429,
        'snake-case-properties': snakeCaseProperties,
        'shared-rate-limit-headers': sharedRateLimitHeaders,
        'success-rate-limit-headers': successRateLimitHeaders,
      },
    },
  };
}
