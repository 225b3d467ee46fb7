import type { Operation } from '../catalogue/index.js';

/**
 * The verbs of `svc <resource> <verb>` and the service operation each needs.
 * A family gets a verb when it supports that operation.
 */
export const serviceVerbs: readonly { readonly verb: string; readonly operation: Operation }[] = [
  { verb: 'query', operation: 'list' },
  { verb: 'count', operation: 'list' },
  { verb: 'sum', operation: 'list' },
  { verb: 'export', operation: 'list' },
  { verb: 'get', operation: 'get' },
  { verb: 'exists', operation: 'exists' },
  { verb: 'create', operation: 'create' },
  { verb: 'update', operation: 'update' },
  { verb: 'delete', operation: 'delete' },
];

/** The verbs a family's operations allow, in the usual order. */
export function verbsOf(operations: readonly Operation[]): string[] {
  return serviceVerbs.filter((v) => operations.includes(v.operation)).map((v) => v.verb);
}
