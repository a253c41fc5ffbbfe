/**
 * The transactions schema's common case, checked by hand: a worker validates a million of
 * these per run, and zod's object walk and per-field transforms cost more than the checks.
 * It accepts a subset of what transactionRecord accepts (JSON numbers for the integers,
 * unix seconds, text for hash/addresses/value without surrounding spaces) and returns the
 * same row; anything else returns undefined and goes through the schema, which accepts the
 * rest and words the reason of a reject. test/unit/transaction-fast-path.test.ts holds
 * the two to that.
 */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const UINT32_MAX = 4_294_967_295;

export function transactionFastPath(t: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!onlyKnownFields(t)) return undefined;
  const { chainId, hash, blockNumber, blockTime, from, to, value } = t;
  if (!isIntegerIn(chainId, 1, UINT32_MAX) || !isIntegerIn(blockNumber, 0, Number.MAX_SAFE_INTEGER)) return undefined;
  // Below 1e12, so never read as milliseconds by the schema.
  if (!isIntegerIn(blockTime, 0, UINT32_MAX)) return undefined;
  if (!matches(hash, TX_HASH) || !matches(from, ADDRESS) || !matches(value, DECIMAL)) return undefined;
  const noTo = to === undefined || to === null || to === '';
  if (!noTo && !matches(to, ADDRESS)) return undefined;
  // Same keys in the same order as the schema's transform: the INSERT's columns come from the first row.
  return {
    chain_id: chainId,
    hash: hash.toLowerCase(),
    block_number: blockNumber,
    block_time: blockTime,
    from_address: from.toLowerCase(),
    to_address: noTo ? '' : (to as string).toLowerCase(),
    value,
  };
}

/** A switch on the key: V8 compares these internalized strings by identity (cheaper than a Set). */
function onlyKnownFields(record: Record<string, unknown>): boolean {
  for (const key in record) {
    switch (key) {
      case 'chainId':
      case 'hash':
      case 'blockNumber':
      case 'blockTime':
      case 'from':
      case 'to':
      case 'value':
        continue;
      default:
        return false;
    }
  }
  return true;
}

function isIntegerIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

function matches(v: unknown, pattern: RegExp): v is string {
  return typeof v === 'string' && pattern.test(v);
}

/**
 * A whole canonical JSON line as JSON.stringify writes it (no spaces, fields in schema
 * order, `to` absent, null, "" or an address): matched in one pass instead of JSON.parse
 * plus the checks above. Its strings hold only hex digits and decimal digits, so no escape
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
