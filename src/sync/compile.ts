/** Remembered settings → the query parts they stand for (the filter language is compiled by the command's own builder). */
import { findFamily, type ResourceFamily } from '../catalogue/index.js';
import { parseFields } from '../records/query-body.js';
import type { Compiled, RememberedFilter, Settings } from './engine.js';

/** The filter options a builder takes (the shape of the commands' FilterOptions). */
export interface FilterInput {
  readonly filter: readonly string[];
  readonly filterJson: readonly string[];
  readonly search?: string;
  readonly tz?: string;
  readonly explain: boolean;
  readonly printRequest: boolean;
}

export type BuildFilter = (family: ResourceFamily, opts: FilterInput) => Promise<Record<string, unknown> | undefined>;

export function filterInput(f: RememberedFilter): FilterInput {
  return { filter: f.filter, filterJson: f.filterJson, ...(f.search !== undefined ? { search: f.search } : {}), ...(f.tz !== undefined ? { tz: f.tz } : {}), explain: false, printRequest: false };
}

export async function compileSettings(family: ResourceFamily, settings: Settings, build: BuildFilter): Promise<Compiled> {
  const filter = await build(family, filterInput(settings.filter));
  return {
    ...(filter ? { filter } : {}),
    ...(settings.filter.search ? { search: settings.filter.search } : {}),
    ...(settings.fields ? { selected: parseFields(family, settings.fields, findFamily) } : {}),
  };
}
