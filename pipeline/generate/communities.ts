/**
 * Communities: groups of profiles that mostly follow, pay and collect among themselves,
 * which is the signal a recommender should find. Each community's members sit in one
 * block of a shuffled profile order; a member's position in the block is its standing
 * (the first few are the community's well-known accounts).
 *
 * State is three typed arrays (about 8 bytes per profile), never objects per profile.
 */
import { Rng, shuffledRange } from './random.ts';

const MIN_SIZE = 15;
const MAX_SIZE = 2_000;
/** Pareto tail: many small circles, a few big scenes. Mean size is about 40. */
const SIZE_ALPHA = 1.6;
/** Within a community, how strongly attention concentrates on its best-known members. */
const STANDING_EXPONENT = 1.0;

export class Communities {
  private constructor(
    /** Profiles ordered community by community. */
    private readonly memberAt: Int32Array,
    /** Community c owns memberAt[start[c] .. start[c + 1]). */
    private readonly start: Int32Array,
    private readonly communityOf: Int32Array,
  ) {}

  static layout(profiles: number, rng: Rng): Communities {
    const memberAt = shuffledRange(profiles, rng);
    const start = Int32Array.from(blockStarts(profiles, rng));
    const communityOf = new Int32Array(profiles);
    for (let c = 0; c + 1 < start.length; c++) {
      for (let i = start[c]!; i < start[c + 1]!; i++) communityOf[memberAt[i]!] = c;
    }
    return new Communities(memberAt, start, communityOf);
  }

  get count(): number {
    return this.start.length - 1;
  }

  of(profile: number): number {
    return this.communityOf[profile]!;
  }

  size(community: number): number {
    return this.start[community + 1]! - this.start[community]!;
  }

  /** A member of `profile`'s community other than itself, well-known ones more likely; -1 if it is alone. */
  popularPeer(profile: number, rng: Rng): number {
    return this.peer(profile, (size) => rng.powerLawRank(size, STANDING_EXPONENT));
  }

  /** A member of `profile`'s community other than itself, uniformly; -1 if it is alone. */
  anyPeer(profile: number, rng: Rng): number {
    return this.peer(profile, (size) => rng.below(size));
  }

  /** A uniform member of a community. */
  anyMember(community: number, rng: Rng): number {
    return this.memberAt[this.start[community]! + rng.below(this.size(community))]!;
  }

  private peer(profile: number, rankIn: (size: number) => number): number {
    const community = this.of(profile);
    const size = this.size(community);
    if (size < 2) return -1;
    for (let attempt = 0; attempt < 8; attempt++) {
      const member = this.memberAt[this.start[community]! + rankIn(size)]!;
      if (member !== profile) return member;
    }
    return -1;
  }
}

/** Block boundaries 0 = s0 < s1 < ... = profiles; a too-small remainder joins the last block. */
function blockStarts(profiles: number, rng: Rng): number[] {
  const starts = [0];
  let next = 0;
  while (next < profiles) {
    const size = Math.min(MAX_SIZE, Math.floor(rng.pareto(MIN_SIZE, SIZE_ALPHA)));
    next = profiles - (next + size) < MIN_SIZE ? profiles : next + size;
    starts.push(next);
  }
  return starts;
}
