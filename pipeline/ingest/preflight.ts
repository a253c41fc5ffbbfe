/**
 * Checks a run's inputs before anything is enqueued, so that a typo in a path, a format or
 * a CSV header stops the run with one line instead of filling ingest_rejects with every row.
 */
import { access, constants, stat } from 'node:fs/promises';
import type { IngestFormat } from '../../shared/queues.ts';
import { fieldNames } from '../../shared/records/record-kind.ts';
import { recordKinds, type KindName } from '../../shared/records/kinds.ts';
import { ethereumEtlMapper } from './ethereum-etl.ts';
import { encodingOf, readCsvHeader } from './source-chunks.ts';

/** A problem with the files or options of a run, reported as one line. */
export class IngestInputError extends Error {
  override name = 'IngestInputError';
}

export async function preflight(options: { kind: KindName; files: string[]; format: IngestFormat }): Promise<void> {
  if (options.files.length === 0) throw new IngestInputError('no files to ingest');
  try {
    if (options.format === 'ethereum-etl') ethereumEtlMapper(options.kind);
    for (const file of options.files) encodingOf(file);
  } catch (error) {
    throw new IngestInputError((error as Error).message);
  }
  for (const file of options.files) await checkFile(file, options.kind, options.format);
}

async function checkFile(file: string, kind: KindName, format: IngestFormat): Promise<void> {
  try {
    await access(file, constants.R_OK);
  } catch {
    throw new IngestInputError(`${file}: no such file, or not readable`);
  }
  if (!(await stat(file)).isFile()) throw new IngestInputError(`${file}: not a file`);
  if (encodingOf(file) !== 'csv') return;

  const first = await readCsvHeader(file);
  if (!first) throw new IngestInputError(`${file}: empty CSV file (a header line is required)`);
  if ('malformed' in first) throw new IngestInputError(`${file}:${first.line}: the CSV header is not valid CSV: ${first.malformed}`);
  const header = first.cells;
  if (header.some((h) => h === '')) throw new IngestInputError(`${file}: the CSV header has blank columns`);
  if (format !== 'canonical') return;
  const known = fieldNames(recordKinds[kind]);
  const unknown = header.filter((h) => !known.includes(h));
  if (unknown.length > 0) {
    throw new IngestInputError(`${file}: unknown column ${unknown.join(', ')}; the columns of ${kind} are ${known.join(', ')}`);
  }
}
