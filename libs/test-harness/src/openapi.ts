// Every answer an end-to-end test receives from the stack is checked against openapi/openapi.yaml
// (OpenAPI 3.1, its schemas checked by ajv as JSON Schema 2020-12): the route must be documented,
// the status listed for it, the content type one it names, and a JSON body valid against its
// schema. An answer of an undocumented route may only be the spec's 404. So the description
// cannot drift from what the stack does without a test failing.
import type { ValidateFunction } from 'ajv';

type Json = Record<string, any>;

interface OpenApiDocument {
  doc: Json;
  validatorAt(pointer: string): ValidateFunction;
}
// The document and its validators are made once per jest worker (openapi-document.js says why),
// handed over by the test environment; loaded here, once per file, where there is none.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const once: { openApiDocument(): OpenApiDocument } = (globalThis as any).__ACCT_WORKER_OPENAPI__ ?? require('./openapi-document.js');

export interface Operation {
  method: string;
  template: string;
  pointer: string;
  operation: Json;
}

let loaded: { doc: Json; operations: Array<Operation & { regex: RegExp }> } | undefined;

export function openApi() {
  if (loaded) return loaded;
  const { doc } = once.openApiDocument();
  const operations = Object.entries(doc.paths as Json).flatMap(([template, item]) =>
    ['get', 'put', 'post', 'delete', 'patch', 'options', 'head']
      .filter((method) => item[method])
      .map((method) => ({
        method: method.toUpperCase(),
        template,
        pointer: `#/paths/${escape(template)}/${method}`,
        operation: item[method] as Json,
        regex: new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : `\\${c}`)).replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i'),
      })),
  );
  loaded = { doc, operations };
  return loaded;
}

/** The documented operations, as `METHOD /path/{param}`. */
export const documentedOperations = () => openApi().operations.map((o) => `${o.method} ${o.template}`);

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const validatorAt = (pointer: string): ValidateFunction => once.openApiDocument().validatorAt(pointer);

/** Follows a `$ref` inside the document; answers the object and its pointer. */
function resolve(node: Json, pointer: string): { node: Json; pointer: string } {
  if (typeof node?.$ref !== 'string') return { node, pointer };
  const target = node.$ref as string;
  const found = target
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((at: Json, key) => at?.[key], openApi().doc);
  return resolve(found, target);
}

export interface Answered {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

/** What is wrong with an answer, measured against the description; empty when nothing is. */
export function openApiProblems(answer: Answered): string[] {
  const method = answer.method.toUpperCase() === 'HEAD' ? 'GET' : answer.method.toUpperCase();
  const pathOnly = answer.path.split('?')[0];
  const where = `${answer.method} ${answer.path} → ${answer.status}`;
  const op = openApi().operations.find((o) => o.method === method && o.regex.test(pathOnly));
  if (!op) {
    // Not a documented route: the spec's 404, and nothing else, is allowed.
    if (answer.status === 404 && answer.text === '' && answer.method.toUpperCase() === 'HEAD') return [];
    const body = safeJson(answer.text);
    if (answer.status === 404 && body?.success === false && body?.code === 'not_found') return [];
    return [`${where}: no documented operation answers ${method} ${pathOnly}`];
  }
  const listed = op.operation.responses?.[String(answer.status)];
  if (!listed) return [`${where}: status ${answer.status} is not documented for ${op.method} ${op.template}`];
  const { node: response, pointer } = resolve(listed, `${op.pointer}/responses/${answer.status}`);
  const content = response.content as Json | undefined;
  if (!content) return answer.text === '' || answer.method.toUpperCase() === 'HEAD' ? [] : [`${where}: documented without a body, answered one`];
  if (answer.method.toUpperCase() === 'HEAD') return [];
  const type = (answer.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!content[type]) return [`${where}: content type ${type || '(none)'} is not documented (${Object.keys(content).join(', ')})`];
  if (type !== 'application/json') return [];
  const body = safeJson(answer.text);
  if (body === undefined) return [`${where}: the body is not JSON`];
  const validate = validatorAt(`${pointer}/content/${escape(type)}/schema`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

function safeJson(text: string): any {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

// The base URLs whose answers are checked (the stacks the end-to-end tests start).
const checkedBases = new Set<string>();
export const checkAnswersOf = (baseUrl: string) => void checkedBases.add(baseUrl);
export const stopCheckingAnswersOf = (baseUrl: string) => void checkedBases.delete(baseUrl);

/** Throws when an answer of a checked stack does not match the description. */
export function assertDocumented(baseUrl: string, answer: Answered): void {
  if (!checkedBases.has(baseUrl)) return;
  const problems = openApiProblems(answer);
  if (problems.length) throw new Error(`The answer does not match openapi/openapi.yaml:\n  ${problems.join('\n  ')}\nbody: ${answer.text.slice(0, 500)}`);
}
