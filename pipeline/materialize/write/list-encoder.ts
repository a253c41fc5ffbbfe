/**
 * Ranked lists as what the run writes: rows of the `recommendations` table in a Native block
 * (native-block.ts), and each profile's first `servingDepth` entries in the serving copy's
 * text format (shared/serving.ts: a header line `<more>\t<entries>`, then one TabSeparated
 * line per entry, `candidate\tkind\tchain\tsubject`). Encoded where the lists are ranked (a
 * rank thread), from the identifiers' bytes: no string is made per row.
 */
import { cell } from '../../../shared/clickhouse/tab-separated.ts';
import type { RankedList } from '../rank/ranker.ts';
import { REASON } from '../rank/reasons.ts';
import { ByteBuilder, nativeBlock, type NativeColumn } from './native-block.ts';

/** The recommendations table's columns, in the order a block holds them. */
export const RECOMMENDATION_COLUMNS = [
  'snapshot_id',
  'bucket',
  'profile_id',
  'rank',
  'candidate_id',
  'score',
  'reason_kind',
  'reason_chain_id',
  'reason_subject',
  'social_score',
  'counterparty_score',
  'nft_score',
  'fof_score',
] as const;

/** What the encoder names things by: every profile id's bytes, and every collection's name. */
export interface EncoderNames {
  profileBytes: Uint8Array;
  profileOffsets: Uint32Array;
  collectionNames: readonly string[];
  /** The reason_kind column's type as the table declares it. */
  reasonKindType: string;
}

const TAB = 9;
const NEWLINE = 10;

/** A fixed-width column's values, growing as rows are added. */
class FixedColumn<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array> {
  values: T;

  constructor(private readonly make: (length: number) => T) {
    this.values = make(4096);
  }

  reserve(rows: number): void {
    if (rows <= this.values.length) return;
    const grown = this.make(Math.max(rows, this.values.length * 2));
    grown.set(this.values as never);
    this.values = grown;
  }

  bytes(rows: number): Uint8Array {
    return new Uint8Array(this.values.buffer, this.values.byteOffset, rows * this.values.BYTES_PER_ELEMENT);
  }
}

export class ListEncoder {
  private readonly rank = new FixedColumn((n) => new Uint32Array(n));
  private readonly score = new FixedColumn((n) => new Float64Array(n));
  private readonly kind = new FixedColumn((n) => new Uint8Array(n));
  private readonly chain = new FixedColumn((n) => new Uint32Array(n));
  private readonly parts = [0, 1, 2, 3].map(() => new FixedColumn((n) => new Float64Array(n)));
  private readonly profileIds = new ByteBuilder();
  private readonly candidateIds = new ByteBuilder();
  private readonly subjects = new ByteBuilder();
  private readonly collectionCells: Uint8Array[];
  private readonly lists = new ByteBuilder();
  private rows = 0;
  /** Each encoded list's profile and where its text ends in `lists`. */
  private readonly listProfiles: number[] = [];
  private readonly listEnds: number[] = [];

  constructor(
    private readonly names: EncoderNames,
    private readonly snapshotId: number,
    private readonly bucket: number,
    private readonly servingDepth: number,
  ) {
    this.collectionCells = names.collectionNames.map((name) => new TextEncoder().encode(name));
  }

  /**
   * Adds a profile's list: its rows, and its served text. The profile is the world's profile
   * p, or one given by its id (a caller the world does not hold: lists on demand).
   */
  add(profile: number | string, list: RankedList): void {
    const ids = this.names.profileBytes;
    const offsets = this.names.profileOffsets;
    const own = typeof profile === 'string' ? new TextEncoder().encode(profile) : undefined;
    const rows = this.rows + list.length;
    for (const column of [this.rank, this.score, this.kind, this.chain, ...this.parts]) column.reserve(rows);
    const [social, counterparty, nft, graph] = this.parts.map((c) => c.values) as [Float64Array, Float64Array, Float64Array, Float64Array];
    const served = Math.min(list.length, this.servingDepth);
    this.lists.byte(list.length > served ? 0x31 : 0x30);
    this.lists.byte(TAB);
    this.decimal(served);
    const [profileBytes, profileStart, profileEnd] = own ? [own, 0, own.length] : [ids, offsets[profile as number]!, offsets[(profile as number) + 1]!];
    for (let i = 0; i < list.length; i++) {
      const at = this.rows + i;
      const candidate = list.candidate[i]!;
      const kind = list.kind[i]!;
      const chainId = list.chainId[i]!;
      this.rank.values[at] = i + 1;
      this.score.values[at] = list.score[i]!;
      this.kind.values[at] = kind;
      this.chain.values[at] = chainId;
      social[at] = list.social[i]!;
      counterparty[at] = list.counterparty[i]!;
      nft[at] = list.nft[i]!;
      graph[at] = list.graph[i]!;
      this.profileIds.string(profileBytes, profileStart, profileEnd);
      this.candidateIds.string(ids, offsets[candidate]!, offsets[candidate + 1]!);
      const subject = list.subject[i]!;
      if (kind === REASON.followed_by) this.subjects.string(ids, offsets[subject]!, offsets[subject + 1]!);
      else if (kind === REASON.nft) this.subjects.string(this.collectionCells[subject]!, 0, this.collectionCells[subject]!.length);
      else this.subjects.byte(0);
      if (i < served) {
        this.lists.byte(NEWLINE);
        this.lists.copy(ids, offsets[candidate]!, offsets[candidate + 1]!);
        this.lists.byte(TAB);
        this.decimal(kind);
        this.lists.byte(TAB);
        this.decimal(chainId);
        this.lists.byte(TAB);
        if (kind === REASON.followed_by) this.lists.copy(ids, offsets[subject]!, offsets[subject + 1]!);
        else if (kind === REASON.nft) this.lists.copy(...this.escapedName(subject));
      }
    }
    this.rows = rows;
    this.listProfiles.push(typeof profile === 'number' ? profile : 0xffffffff);
    this.listEnds.push(this.lists.length);
  }

  /** The rows added since the last take, as one Native block, and the lists' texts; then starts afresh. */
  take(): { block: Uint8Array; rows: number; lists: Uint8Array; listProfiles: Uint32Array; listEnds: Uint32Array } {
    const rows = this.rows;
    const column = (name: string, type: string, bytes: Uint8Array): NativeColumn => {
      const values = new ByteBuilder(bytes.length + 8);
      values.copy(bytes, 0, bytes.length);
      return { name, type, values };
    };
    const constant = (value: number, width: 2 | 4) => {
      const array = width === 4 ? new Uint32Array(rows).fill(value) : new Uint16Array(rows).fill(value);
      return new Uint8Array(array.buffer);
    };
    const asColumn = (name: string, values: ByteBuilder, type = 'String'): NativeColumn => ({ name, type, values });
    const block = nativeBlock(
      [
        column('snapshot_id', 'UInt32', constant(this.snapshotId, 4)),
        column('bucket', 'UInt16', constant(this.bucket, 2)),
        asColumn('profile_id', this.profileIds),
        column('rank', 'UInt32', this.rank.bytes(rows)),
        asColumn('candidate_id', this.candidateIds),
        column('score', 'Float64', this.score.bytes(rows)),
        column('reason_kind', this.names.reasonKindType, this.kind.bytes(rows)),
        column('reason_chain_id', 'UInt32', this.chain.bytes(rows)),
        asColumn('reason_subject', this.subjects),
        ...['social_score', 'counterparty_score', 'nft_score', 'fof_score'].map((name, i) => column(name, 'Float64', this.parts[i]!.bytes(rows))),
      ],
      rows,
    );
    const taken = {
      block,
      rows,
      lists: this.lists.done().slice(),
      listProfiles: Uint32Array.from(this.listProfiles),
      listEnds: Uint32Array.from(this.listEnds),
    };
    for (const builder of [this.profileIds, this.candidateIds, this.subjects, this.lists]) builder.clear();
    this.rows = 0;
    this.listProfiles.length = 0;
    this.listEnds.length = 0;
    return taken;
  }

  private escapedNames = new Map<number, Uint8Array>();

  /** A collection's name as a TabSeparated cell (names may hold tabs or newlines). */
  private escapedName(collection: number): [Uint8Array, number, number] {
    let bytes = this.escapedNames.get(collection);
    if (!bytes) this.escapedNames.set(collection, (bytes = new TextEncoder().encode(cell(this.names.collectionNames[collection]!))));
    return [bytes, 0, bytes.length];
  }

  private decimal(value: number): void {
    if (value < 10) {
      this.lists.byte(0x30 + value);
      return;
    }
    const digits = String(value);
    for (let i = 0; i < digits.length; i++) this.lists.byte(digits.charCodeAt(i));
  }
}

