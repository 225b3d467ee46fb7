// `npm run gen [-- --spec-dir DIR]`: the generator's entry, the one place it meets `process`
// (src/ leaves that to src/cli/main.ts; see src/gen/main.ts).
import { runGen } from '../src/gen/main.js';

process.exitCode = await runGen({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stderr: (text) => process.stderr.write(text),
});
