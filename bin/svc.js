#!/usr/bin/env node
// svc: a thin shim. The program is bundled into dist/ by `npm run build`.
import { main } from '../dist/svc.js';

process.exitCode = await main(process.argv.slice(2));
