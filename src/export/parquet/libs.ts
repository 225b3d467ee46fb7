/** hyparquet-writer's Thrift writers (libs-source.ts), loaded on first use: no other command pays for them. */
export type ParquetLibs = typeof import('./libs-source.js');

/** Parquet's FileMetaData as hyparquet types it (enums by name, i64 fields as bigint). */
export type FileMetaData = Parameters<ParquetLibs['writeMetadata']>[1];

let loading: Promise<ParquetLibs> | undefined;

export function parquetLibs(): Promise<ParquetLibs> {
  return (loading ??= import('./libs-source.js'));
}
