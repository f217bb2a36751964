// What one feature's settings are: its variables, the section of the parsed config they become
// (with the development default where one stands in), the part of the use cases' policy it decides,
// what production refuses and what it accepts but warns about. config.ts composes every feature of
// index.ts into auth's one schema, so a feature's settings are read in one file, and each value has
// one name: its section's.
import { z } from 'zod';
import type { ConfigRule } from '@acct/shared';
import type { AuthPolicy } from '../domain/shared/ports';

export interface FeatureSettings<V extends z.ZodRawShape, S, P extends Partial<AuthPolicy> = Partial<AuthPolicy>> {
  /** The variables, as the schema reads them. */
  variables: V;
  /** The section these values become (NODE_ENV given for development defaults). */
  section(values: z.infer<z.ZodObject<V>> & { NODE_ENV: string }, ctx: z.RefinementCtx): S;
  /** The part of the use cases' policy (domain AuthPolicy) this feature decides, from its section. */
  policy?(section: S): P;
  /** What every environment refuses beyond the schema, on the values as given (secret files read). */
  rules?: ConfigRule;
  /** What production refuses, on the values as given (secret files read). */
  production?: ConfigRule;
  /** What production accepts but weakens: one line each, said at start. */
  weakened?(section: S): string[];
}

/** A feature's settings, typed from its variables. */
export const feature = <V extends z.ZodRawShape, S, P extends Partial<AuthPolicy> = Record<never, never>>(settings: FeatureSettings<V, S, P>): FeatureSettings<V, S, P> => settings;

/**
 * A variable holding a JSON array of entries with an `id` each (the identity providers, the apps):
 * each entry as `schema` reads it, ids once each; a problem is one issue on the variable, naming the
 * entry (`what` and its index) and the field. Unset or empty: none.
 */
export function parseJsonEntries<S extends z.ZodTypeAny>(value: string | undefined, ctx: z.RefinementCtx, schema: S, words: { what: string; expected: string }): Array<z.infer<S>> {
  if (value === undefined || value.trim() === '') return [];
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `expected a JSON array of ${words.expected}` });
    return [];
  }
  const parsed = z.array(schema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    ctx.addIssue({ code: 'custom', message: `${words.what} ${issue.path.join('.')}: ${issue.message}` });
    return [];
  }
  const ids = (parsed.data as Array<{ id: string }>).map((entry) => entry.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) ctx.addIssue({ code: 'custom', message: `${words.what} id "${repeated}" is given twice` });
  return parsed.data;
}

/**
 * A secret variable holding a JSON object of entry id to secret (the providers', the apps'): each
 * secret at least `minLength` long, and only for ids `entries` has; a problem is an issue on the variable.
 */
export function parseSecretsById(
  value: string | undefined,
  ctx: z.RefinementCtx,
  variable: string,
  entries: { ids: string[]; listedIn: string; what: string; minLength: number },
): Record<string, string> {
  if (!value) return {};
  let secrets: Record<string, string>;
  try {
    secrets = z.record(z.string().min(entries.minLength)).parse(JSON.parse(value));
  } catch {
    ctx.addIssue({ code: 'custom', path: [variable], message: `expected a JSON object of ${entries.what} id to a secret${entries.minLength > 1 ? ` of at least ${entries.minLength} characters` : ''}` });
    return {};
  }
  const strangers = Object.keys(secrets).filter((id) => !entries.ids.includes(id));
  if (strangers.length) ctx.addIssue({ code: 'custom', path: [variable], message: `secrets for ${entries.what}s not in ${entries.listedIn}: ${strangers.join(', ')}` });
  return secrets;
}
