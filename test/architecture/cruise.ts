/**
 * Runs dependency-cruiser over src/ with the project's rules
 * (.dependency-cruiser.cjs), as `npm run graph` does, and words its findings
 * for a failing test.
 */
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

export async function cruiseSrc(): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  const reported = await cruise(['src'], { ...options, outputType: 'json' }, undefined, { tsConfig: extractTSConfig('tsconfig.json') });
  return (typeof reported.output === 'string' ? JSON.parse(reported.output) : reported.output) as ICruiseResult;
}

/** How one import is made, when it is not a plain static import. */
function kind(types: readonly string[] | undefined): string {
  if (!types) return '';
  if (types.includes('type-only') || types.includes('type-import')) return ' (type)';
  if (types.includes('dynamic-import')) return ' (dynamic)';
  return '';
}

/** One violation on one line; a cycle as `a → b (type) → a`, each hop marked when it is type-only or dynamic. */
export function describeViolation(v: IViolation): string {
  if (v.cycle && v.cycle.length > 0) return [v.from, ...v.cycle.map((c) => `${c.name}${kind(c.dependencyTypes)}`)].join(' → ');
  return `${v.from} → ${v.to}${kind(v.dependencyTypes)}`;
}
