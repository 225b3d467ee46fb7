/**
 * The filter language of `--filter`: text → tokens → syntax tree → the
 * service's JSON filter. This module is what the rest of svc uses.
 */
export { compileFilter, type CompileOptions, type CompileResult } from './compile.js';
export { renderFilterError, type FilterError } from './errors.js';
export { filterHelp } from './help.js';
export { combineFilters } from './shape.js';
