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
