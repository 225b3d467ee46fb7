/** What the sync flags say, typed (read from the command line by src/commands/records/sync-flags.ts). */
export interface SyncFlags {
  readonly into: string;
  readonly lagSeconds: number;
  readonly reconcileEvery: number;
  /** --keep-deleted when given (absent: the remembered choice). */
  readonly keepDeleted?: boolean;
  readonly reset: boolean;
  readonly pageSize: number;
  readonly concurrency: number;
  readonly progress: boolean;
  readonly quiet: boolean;
  /** --status: read the copy and show its state; nothing is synced. */
  readonly status: boolean;
}
