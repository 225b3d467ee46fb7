/** `svc version`: one object, labelled lines on a terminal and JSON otherwise, like every other command's data. */
import { arch, platform } from 'node:os';
import type { NoOptions } from '../../cli/command.js';
import type { Context } from '../../cli/context.js';
import type { ObjectView } from '../../output/view.js';
import { version } from '../../version.js';
import { commit } from './build-info.js';

/** What `svc version` shows: svc's version and build, and what runs it. */
export interface VersionFacts {
  readonly version: string;
  readonly commit: string;
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
}

export function versionView(facts: VersionFacts): ObjectView {
  return {
    kind: 'object',
    value: { ...facts },
    details: [
      ['svc', facts.version],
      ['commit', facts.commit],
      ['node', facts.node],
      ['platform', `${facts.platform}/${facts.arch}`],
    ],
  };
}

export async function runVersion(_opts: NoOptions, ctx: Context): Promise<void> {
  await ctx.emit(versionView({ version, commit, node: ctx.deps.nodeVersion ?? 'unknown', platform: platform(), arch: arch() }));
}
