/**
 * The parts of hyparquet-writer a Parquet export takes, in one module: the
 * Thrift compact encoding of the format's structures (the data pages'
 * headers and the footer's FileMetaData) and the growing buffer it writes
 * them into. The values themselves are ours (pages.ts, row-group.ts). The
 * build bundles this module apart (dist/chunks/parquet.cjs), loaded only by a
 * Parquet export (see libs.ts).
 */
export { writeMetadata } from 'hyparquet-writer/src/metadata.js';
export { writePageHeader } from 'hyparquet-writer/src/datapage.js';
export { ByteWriter } from 'hyparquet-writer/src/bytewriter.js';
