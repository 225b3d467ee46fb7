import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { buildCatalogue } from '../../src/gen/catalogue.js';
import { renderCatalogueModule } from '../../src/gen/render.js';
import { projectRoot, readSpec, specDir } from '../../src/gen/spec-files.js';

const dir = specDir();
const spec = readSpec(dir);
const name = 'src/catalogue/resources.gen.ts matches a fresh run of the generator';

if (spec) {
  it(name, () => {
    const fresh = renderCatalogueModule(buildCatalogue(spec.api, spec.db));
    const committed = readFileSync(join(projectRoot, 'src', 'catalogue', 'resources.gen.ts'), 'utf8');
    expect(committed === fresh, 'the generated catalogue is stale or was edited by hand: run `npm run gen`').toBe(true);
  });
} else if (process.env.CI) {
  it(name, () => {
    throw new Error(`CI must have the vendor spec at ${dir} (or SVC_SPEC_DIR)`);
  });
} else {
  it.skip(`${name} (skipped: ${dir} not found, and outside CI the spec is optional)`, () => undefined);
}
