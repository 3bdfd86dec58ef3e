import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CtxSchema, STDLIB_NAMES } from '../../src/policy/index.js';
import { FAILURE_KINDS } from '../../src/sandbox/index.js';

const read = (name: string): string => readFileSync(fileURLToPath(new URL(`../../src/policy/${name}`, import.meta.url)), 'utf8');
const dts = read('policy.d.ts');
const contract = read('CONTRACT.md');

/** Every field name in the schema, at every depth, with its path for messages. */
function fieldPaths(schema: z.ZodType, path = 'ctx'): { key: string; path: string }[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return fieldPaths(schema.unwrap() as z.ZodType, path);
  if (schema instanceof z.ZodArray) return fieldPaths(schema.element as z.ZodType, `${path}[]`);
  if (schema instanceof z.ZodRecord) return fieldPaths(schema.valueType as z.ZodType, `${path}[kind]`);
  if (schema instanceof z.ZodObject) {
    return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, child]) => [
      { key, path: `${path}.${key}` },
      ...fieldPaths(child, `${path}.${key}`),
    ]);
  }
  return [];
}

describe('policy author documents', () => {
  const fields = fieldPaths(CtxSchema);

  it('the walk finds the whole ctx', () => {
    expect(fields.length).toBeGreaterThan(50);
    expect(fields.map((f) => f.path)).toContain('ctx.model.byKind[kind].decode.d2');
  });

  it('policy.d.ts declares every ctx field, at every depth', () => {
    const missing = fields.filter((f) => !new RegExp(`\\b${f.key}\\??:`).test(dts)).map((f) => f.path);
    expect(missing).toEqual([]);
  });

  it('CONTRACT.md names every top-level ctx field and every nested field', () => {
    const top = Object.keys(CtxSchema.shape);
    expect(top.filter((k) => !contract.includes(`\`${k}\``) && !contract.includes(`\`${k}[]\``))).toEqual([]);
    const missing = fields.filter((f) => !new RegExp(`\\b${f.key}\\b`).test(contract)).map((f) => f.path);
    expect(missing).toEqual([]);
  });

  it('both name every stdlib function and CONTRACT.md every failure kind', () => {
    for (const name of STDLIB_NAMES) {
      expect(dts, name).toMatch(new RegExp(`declare function ${name}\\(`));
      expect(contract, name).toContain(`\`${name}(`);
    }
    for (const kind of FAILURE_KINDS) expect(contract, kind).toContain(`| \`${kind}\` |`);
    expect(dts).toMatch(/declare function shouldReschedule\(ctx: Ctx\): boolean/);
    expect(dts).toMatch(/declare function schedule\(ctx: Ctx\): Plan/);
  });
});
