// TRANSITION ONLY (issue 13)
import type { Command } from 'commander';
import type { ResourceFamily } from '../catalogue/index.js';
import type { Deps } from './deps.js';

export interface VerbSpec {
  readonly name: string;
  readonly summary: (family: ResourceFamily) => string;
  readonly applies: (family: ResourceFamily) => boolean;
  readonly configure: (cmd: Command, family: ResourceFamily, deps: Deps) => void;
}
