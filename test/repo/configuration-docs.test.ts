// The configuration table (docs/configuration.md), .env.example and the services' config schemas name the same variables.
import fs from 'node:fs';
import path from 'node:path';
import type { ZodObject, ZodRawShape } from 'zod';
import { authSchema } from '@acct/auth';
import { desktopSchema } from '@acct/desktop';
import { gatewaySchema } from '@acct/gateway';
import { notifierSchema } from '@acct/notifier';

const root = path.resolve(__dirname, '..', '..');
const section = fs.readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8');
const documented = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
const example = fs
  .readFileSync(path.join(root, '.env.example'), 'utf8')
  .split('\n')
  .filter((line) => /^[A-Z0-9_]+=/.test(line))
  .map((line) => line.split('=')[0]);
const schemaKeys = (schema: unknown) => Object.keys((schema as ZodObject<ZodRawShape>).shape);
const read = new Set([gatewaySchema, authSchema, notifierSchema, desktopSchema].flatMap(schemaKeys));

describe('configuration documentation', () => {
  it('documents every variable a service reads, and no other', () => {
    expect([...new Set(documented)].sort()).toEqual([...read].sort());
  });

  it('keeps .env.example in step with the table', () => {
    expect([...new Set(example)].sort()).toEqual([...new Set(documented)].sort());
  });
});
