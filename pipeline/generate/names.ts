/** Word lists that give the demo world readable names. Pure data and string assembly. */

export const FIRST_NAMES = [
  'Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory', 'Niaj',
  'Olivia', 'Peggy', 'Rupert', 'Sybil', 'Trent', 'Victor', 'Walter', 'Yuki', 'Zara', 'Amara', 'Bao',
  'Chidi', 'Diego', 'Elif', 'Farah', 'Goran', 'Hana', 'Ines', 'Jonas', 'Kenji', 'Lena', 'Mateo', 'Nadia',
  'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq', 'Uma', 'Vera', 'Wei', 'Xavier', 'Yara', 'Zoltan',
] as const;

export const LAST_NAMES = [
  'Nakamoto', 'Szabo', 'Finney', 'Back', 'Chaum', 'Merkle', 'Diffie', 'Hellman', 'Lamport', 'Shamir',
  'Rivest', 'Adleman', 'Buterin', 'Wood', 'Lubin', 'Garcia', 'Kim', 'Okafor', 'Silva', 'Novak', 'Rossi',
  'Dubois', 'Khan', 'Tanaka', 'Ivanova', 'Moreau', 'Haddad', 'Larsen', 'Costa', 'Mendes', 'Park', 'Sato',
] as const;

/** Handle stems; never contain "_" so the index suffix after "_" keeps handles unique. */
export const HANDLE_WORDS = [
  'alpha', 'anon', 'ape', 'based', 'block', 'builder', 'chad', 'chain', 'crypto', 'degen', 'dev', 'eth',
  'gm', 'hodl', 'moon', 'node', 'onchain', 'pixel', 'punk', 'satoshi', 'solidity', 'stake', 'wagmi',
  'web3', 'whale', 'yield', 'zk', 'rollup', 'gas', 'mint', 'dao', 'defi', 'nft', 'ser', 'fren', 'ens',
] as const;

const COLLECTION_ADJECTIVES = [
  'Bored', 'Cosmic', 'Pixel', 'Lazy', 'Neon', 'Cyber', 'Golden', 'Mutant', 'Tiny', 'Wild', 'Lucky', 'Ghost',
  'Robo', 'Quantum', 'Sleepy', 'Electric', 'Crypto', 'Moon', 'Forgotten', 'Digital',
] as const;

const COLLECTION_NOUNS = [
  'Apes', 'Cats', 'Punks', 'Frogs', 'Foxes', 'Owls', 'Pandas', 'Robots', 'Wizards', 'Knights', 'Dragons',
  'Skulls', 'Toadz', 'Whales', 'Bears', 'Kongs', 'Aliens', 'Monsters', 'Gardens', 'Worlds',
] as const;

/** Distinct for the first 400 collections, then numbered editions ("Neon Owls II"). */
export function collectionName(index: number): string {
  const adjective = COLLECTION_ADJECTIVES[index % COLLECTION_ADJECTIVES.length]!;
  const noun = COLLECTION_NOUNS[Math.floor(index / COLLECTION_ADJECTIVES.length) % COLLECTION_NOUNS.length]!;
  const edition = Math.floor(index / (COLLECTION_ADJECTIVES.length * COLLECTION_NOUNS.length));
  return edition === 0 ? `${adjective} ${noun}` : `${adjective} ${noun} ${edition + 1}`;
}

/** Initials plus the index in base 36, e.g. "NO4": short and unique per collection. */
export function collectionSymbol(name: string, index: number): string {
  const initials = name
    .split(' ')
    .filter((w) => /^[A-Z]/.test(w))
    .map((w) => w[0])
    .join('');
  return `${initials}${index.toString(36).toUpperCase()}`;
}

export const ISSUER_WORDS = [
  'Aurora', 'Beacon', 'Cobalt', 'Delta', 'Ember', 'Flux', 'Granite', 'Harbor', 'Iris', 'Juniper', 'Keystone',
  'Lumen', 'Meridian', 'Nimbus', 'Orbit', 'Prism', 'Quartz', 'Ripple', 'Summit', 'Tidal', 'Umbra', 'Vertex',
  'Willow', 'Zenith', 'Atlas', 'Boreal', 'Cedar', 'Drift', 'Echo', 'Fable',
] as const;

/** "Some Name" -> "some-name", for URLs and RDF terms. */
export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
