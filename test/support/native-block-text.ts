/**
 * A Native block (pipeline/materialize/write/native-block.ts) as TabSeparated rows, for the
 * chdb front (chdb-http.ts): the engine inside chdb takes an INSERT's rows only inside its SQL
 * text, where binary cannot go. Reads the types the run writes: UInt8/16/32/64, Int8, Float64,
 * String and Enum8 (written by name). Test support: the server behind docker-compose.yml takes
 * Native itself.
 */
import { cell } from '../../shared/clickhouse/tab-separated.ts';

export function nativeBlocksAsTabSeparated(body: Buffer): { columns: string[]; text: string } {
  let at = 0;
  const varUInt = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = body[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  const string = () => {
    const length = varUInt();
    const text = body.toString('utf8', at, at + length);
    at += length;
    return text;
  };
  let names: string[] = [];
  const lines: string[] = [];
  while (at < body.length) {
    const columnCount = varUInt();
    const rowCount = varUInt();
    const columns: string[][] = [];
    names = [];
    for (let c = 0; c < columnCount; c++) {
      names.push(string());
      const type = string();
      const values: string[] = [];
      const enumNames = enumNamesOf(type);
      for (let r = 0; r < rowCount; r++) values.push(valueOf(type, enumNames));
      columns.push(values);
    }
    for (let r = 0; r < rowCount; r++) lines.push(columns.map((values) => values[r]!).join('\t'));
  }
  return { columns: names, text: lines.length > 0 ? `${lines.join('\n')}\n` : '' };

  function valueOf(type: string, enumNames: Map<number, string> | undefined): string {
    let value: string;
    switch (enumNames ? 'Enum8' : type) {
      case 'UInt8':
        value = String(body.readUInt8(at));
        at += 1;
        return value;
      case 'Int8':
        value = String(body.readInt8(at));
        at += 1;
        return value;
      case 'Enum8': {
        const number = body.readInt8(at);
        at += 1;
        return cell(enumNames!.get(number) ?? String(number));
      }
      case 'UInt16':
        value = String(body.readUInt16LE(at));
        at += 2;
        return value;
      case 'UInt32':
        value = String(body.readUInt32LE(at));
        at += 4;
        return value;
      case 'UInt64':
        value = String(body.readBigUInt64LE(at));
        at += 8;
        return value;
      case 'Float64':
        // Written as JavaScript shortest round trip: the engine reads the same double back.
        value = String(body.readDoubleLE(at));
        at += 8;
        return value;
      case 'String':
        return cell(string());
      default:
        throw new Error(`native-block-text: no reader for ${type}`);
    }
  }
}

function enumNamesOf(type: string): Map<number, string> | undefined {
  if (!type.startsWith('Enum8(')) return undefined;
  return new Map([...type.matchAll(/'((?:[^'\\]|\\.)*)' = (-?\d+)/g)].map((m) => [Number(m[2]), m[1]!]));
}
