/**
 * The canonical transactions line as a pattern: the grammar that the byte writer
 * (shared/records/transaction-tsv-line.ts) implements by hand, kept here in readable form
 * as the oracle the tests hold that writer to, and that they hold to the schema in turn.
 * (It was once the workers' line fast path; the byte writer replaced it there.)
 */
const UINT32_MAX = 4_294_967_295;

/**
 * A whole canonical JSON line as JSON.stringify writes it (no spaces, fields in schema
 * order, `to` absent, null, "" or an address): matched in one pass instead of JSON.parse
 * plus the record checks. Its strings hold only hex digits and decimal digits, so no escape
 * can hide in them; its numbers are JSON integers without leading zeros.
 */
const CANONICAL_LINE = new RegExp(
  '^\\{"chainId":(0|[1-9][0-9]{0,9}),"hash":"(0x[0-9a-fA-F]{64})","blockNumber":(0|[1-9][0-9]{0,15}),' +
    '"blockTime":(0|[1-9][0-9]{0,9}),"from":"(0x[0-9a-fA-F]{40})",(?:"to":(?:"(0x[0-9a-fA-F]{40})"|null|""),)?' +
    '"value":"(0|[1-9][0-9]*)"\\}$',
);

/** The row of a canonical line (as transactionRecord would make it), or undefined for any other line. */
export function transactionLineFastPath(line: string): Record<string, unknown> | undefined {
  const m = CANONICAL_LINE.exec(line);
  if (m === null) return undefined;
  const chainId = Number(m[1]);
  const blockNumber = Number(m[3]);
  const blockTime = Number(m[4]);
  // Range checks the pattern cannot make (digit counts only bound them).
  if (chainId < 1 || chainId > UINT32_MAX || blockNumber > Number.MAX_SAFE_INTEGER || blockTime > UINT32_MAX) return undefined;
  return {
    chain_id: chainId,
    hash: m[2]!.toLowerCase(),
    block_number: blockNumber,
    block_time: blockTime,
    from_address: m[5]!.toLowerCase(),
    to_address: m[6] === undefined ? '' : m[6].toLowerCase(),
    value: m[7],
  };
}
