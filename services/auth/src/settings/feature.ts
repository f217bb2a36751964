// What one feature's settings are: its variables, the section of the parsed config they become
// (with the development default where one stands in), the part of the use cases' policy it decides,
// what production refuses and what it accepts but warns about. config.ts composes every feature of
// index.ts into auth's one schema, so a feature's settings are read in one file, and each value has
// one name: its section's.
import type { z } from 'zod';
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
