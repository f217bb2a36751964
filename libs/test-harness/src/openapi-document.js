// The OpenAPI description as the end-to-end tests check answers against it (openapi.ts):
// openapi/openapi.yaml parsed, given to ajv (JSON Schema 2020-12), and each schema's validator
// compiled once it is first needed. JavaScript, so that test/setup/environment.js can load it with
// the worker's own require: a worker does this once, not each test file in its module registry.
// Each of some thirty files paid again 0.6 s to read the document and 20 ms a validator (13 s and
// 8 s of a profiled run, 2026-11-29). Nothing in it changes once made: the document is only read,
// and a validator gives the same answer whichever file asks.
const fs = require('node:fs');
const path = require('node:path');

const DOC_ID = 'https://account-service.local/openapi.json';
const OPENAPI_PATH = path.resolve(__dirname, '..', '..', '..', 'openapi', 'openapi.yaml');

let made;
function openApiDocument() {
  if (made) return made;
  const yaml = require('js-yaml');
  const Ajv2020 = require('ajv/dist/2020').default;
  const addFormats = require('ajv-formats').default;
  const doc = yaml.load(fs.readFileSync(OPENAPI_PATH, 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const validators = new Map();
  /** The validator of the schema at a JSON pointer inside the document (`#/paths/…`). */
  const validatorAt = (pointer) => {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOC_ID}${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };
  made = { doc, validatorAt };
  return made;
}

module.exports = { openApiDocument };
