import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { InputError } from '../../common/errors.js';
import { parseOrThrow } from '../../common/validate.js';
import { ModelProfileSchema, type ModelProfile } from './model.js';
import { NodeKindSchema, type NodeKind } from './node-kind.js';
import { PROFILES_DIR, profilesDir } from './paths.js';

/**
 * Loading profiles by name (a file evaluator/profiles/<name>.json) or by path
 * (anything ending in .json or containing a slash). Both kinds share the
 * folder; the `profile` field ("node-kind" or "model") tells them apart.
 */

type ProfileTag = 'node-kind' | 'model';

const LABEL: Record<ProfileTag, string> = { 'node-kind': 'node kind', model: 'model' };

export function loadNodeKind(nameOrPath: string): NodeKind {
  return load(nameOrPath, 'node-kind', NodeKindSchema);
}

export function loadModel(nameOrPath: string): ModelProfile {
  return load(nameOrPath, 'model', ModelProfileSchema);
}

/** Names of the shipped node kinds, sorted. */
export function listNodeKinds(): string[] {
  return listTagged('node-kind');
}

/** Names of the shipped models, sorted. */
export function listModels(): string[] {
  return listTagged('model');
}

function isPath(nameOrPath: string): boolean {
  return nameOrPath.endsWith('.json') || nameOrPath.includes('/') || nameOrPath.includes('\\');
}

function load<S extends z.ZodType>(nameOrPath: string, tag: ProfileTag, schema: S): z.output<S> {
  let file: string;
  let label: string;
  if (isPath(nameOrPath)) {
    file = nameOrPath;
    label = nameOrPath;
  } else {
    const known = listTagged(tag);
    if (!known.includes(nameOrPath)) {
      throw new InputError(`unknown ${LABEL[tag]} "${nameOrPath}"; known ${LABEL[tag]}s: ${known.join(', ') || '(none)'}`);
    }
    file = join(profilesDir(), `${nameOrPath}.json`);
    label = `${PROFILES_DIR}/${nameOrPath}.json`;
  }
  return parseOrThrow(schema, readJson(file, label), { file: label });
}

function readJson(file: string, label: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read profile: ${(err as Error).message}`, { file: label });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`not valid JSON: ${(err as Error).message}`, { file: label });
  }
}

/** Shipped profile names whose `profile` field is `tag`; a broken file in the folder is an error. */
function listTagged(tag: ProfileTag): string[] {
  const names: string[] = [];
  for (const entry of readdirSync(profilesDir()).sort()) {
    if (!entry.endsWith('.json')) continue;
    const value = readJson(join(profilesDir(), entry), `${PROFILES_DIR}/${entry}`);
    if (value !== null && typeof value === 'object' && (value as { profile?: unknown }).profile === tag) {
      names.push(entry.slice(0, -'.json'.length));
    }
  }
  return names;
}
