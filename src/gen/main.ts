/**
 * `npm run gen` (scripts/gen.ts runs it): regenerates src/catalogue/resources.gen.ts
 * from the vendor documents, then completions/ from the command tree. Takes
 * its surroundings as arguments, like the CLI's run(): scripts/gen.ts hands
 * over argv, the environment and stderr.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalogue } from './catalogue.js';
import { renderCatalogueModule } from './render.js';
import { loadSpec, missingSpec, projectRoot, specLocation } from './spec-files.js';

export interface GenIo {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** One line of text at a time, newline included. */
  readonly stderr: (text: string) => void;
  /** Writes a generated file (default: to disk). */
  readonly write?: (file: string, text: string) => void;
  /** Whether to write completions/ too (default true). */
  readonly completions?: boolean;
}

const USAGE = 'usage: npm run gen [-- --spec-dir DIR]   (DIR, else $SVC_SPEC_DIR, else ../shared/spec: the folder with api.json and dbref.json, or its openapi/)';

/** `--spec-dir DIR` or `--spec-dir=DIR`; anything else is a usage error. */
function parseArgs(argv: readonly string[]): { specDir?: string; help?: true } | string {
  let specDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return { help: true };
    if (arg === '--spec-dir' || arg.startsWith('--spec-dir=')) {
      const value = arg === '--spec-dir' ? argv[++i] : arg.slice('--spec-dir='.length);
      if (!value) return '--spec-dir needs a directory';
      specDir = value;
      continue;
    }
    return `unknown argument '${arg}'`;
  }
  return specDir === undefined ? {} : { specDir };
}

/** Runs the generator; resolves to the exit code (0, or 2 for bad arguments or missing documents). */
export async function runGen(io: GenIo): Promise<number> {
  const args = parseArgs(io.argv);
  if (typeof args === 'string') {
    io.stderr(`gen: ${args}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    io.stderr(`${USAGE}\n`);
    return 0;
  }
  const loc = specLocation({ specDir: args.specDir, env: io.env, cwd: io.cwd });
  const spec = loadSpec(loc);
  if (!spec) {
    io.stderr(`gen: ${missingSpec(loc)}\n`);
    return 2;
  }
  const write = io.write ?? writeFileSync;
  const catalogue = buildCatalogue(spec.api, spec.db);
  const out = join(projectRoot, 'src', 'catalogue', 'resources.gen.ts');
  write(out, renderCatalogueModule(catalogue));
  const fields = catalogue.families.reduce((n, f) => n + f.fields.length, 0);
  io.stderr(`gen: ${catalogue.families.length} families, ${fields} fields -> ${out}\n`);
  if (io.completions === false) return 0;
  // Loaded only now: the command tree reads the catalogue module just written.
  const { writeCompletions } = await import('./write-completions.js');
  for (const file of writeCompletions(write)) io.stderr(`gen: completion -> ${file}\n`);
  return 0;
}
