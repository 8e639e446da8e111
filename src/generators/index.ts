/**
 * fast-check arbitraries derived from the spec's schemas: valid, fully-populated bodies and
 * invalid variants that break one stated constraint at a time. Nothing here restates the contract:
 * fields, types, enums and bounds come from the loaded spec.
 */
export {
  JSON_TYPES,
  cloneJson,
  fieldsOf,
  flatten,
  getPointer,
  itemsOf,
  jsonTypeOf,
  nonNull,
  parsePointer,
  propertiesOf,
  setPointer,
  toPointer,
  typesOf,
  enumOf,
  unspecifiedOf,
  type FieldInfo,
  type JsonType,
} from './schema.js';
export {
  TEST_DATA_PREFIX,
  fillPath,
  missingFixtures,
  pathFixture,
  validBody,
  validQueryValue,
  validValue,
  type GenOptions,
  type ValueMode,
} from './valid.js';
export {
  boundCase,
  boundaryValues,
  enumCase,
  enumNearMiss,
  enumFields,
  enumViolation,
  inRange,
  integerQueryParams,
  malformedJson,
  nonIntegerQuery,
  nonsenseWord,
  outOfRange,
  typedFields,
  wrongTypeCase,
  wrongTypeOf,
  nearMissWrongValue,
  strictNearMissWrongValue,
  wrongTypeValue,
  type BoundSide,
  type BoundaryValue,
  type InvalidCase,
  type InvalidKind,
} from './invalid.js';
