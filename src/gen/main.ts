import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalogue } from './catalogue.js';
import { renderCatalogueModule } from './render.js';
import { projectRoot, readSpec, specDir } from './spec-files.js';

/** `npm run gen`: regenerates the catalogue module from the vendor documents. */
function main(): void {
  const dir = specDir();
  const spec = readSpec(dir);
  if (!spec) {
    process.stderr.write(`gen: api.json and dbref.json not found in ${dir}; set SVC_SPEC_DIR\n`);
    process.exitCode = 2;
    return;
  }
  const catalogue = buildCatalogue(spec.api, spec.db);
  const out = join(projectRoot, 'src', 'catalogue', 'resources.gen.ts');
  writeFileSync(out, renderCatalogueModule(catalogue));
  const fields = catalogue.families.reduce((n, f) => n + f.fields.length, 0);
  process.stderr.write(`gen: ${catalogue.families.length} families, ${fields} fields -> ${out}\n`);
}

main();
