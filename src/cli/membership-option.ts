import { InputError } from '../common/errors.js';
import type { MembershipChange } from '../sim/index.js';

/** Parse `--elastic "3:down@600,3:up@1800"` into membership changes. */
export function parseMembership(spec: string): MembershipChange[] {
  return spec.split(',').map((item) => {
    const m = /^\s*(\d+)\s*:\s*(down|up)\s*@\s*(\d+(?:\.\d+)?)\s*$/.exec(item);
    if (!m) throw new InputError(`"${item}" is not NODE:down@SECONDS or NODE:up@SECONDS`, { field: '--elastic' });
    return { node: Number(m[1]), event: m[2] as 'down' | 'up', at: Number(m[3]) };
  });
}
