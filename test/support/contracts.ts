/**
 * The test contracts (test/fixtures/contracts/*.sol), compiled offline with the `solc` npm
 * package (standard JSON, evmVersion cancun for OpenZeppelin 5, imports read from
 * node_modules) once, then cached under .contracts-cache/ keyed by the sources' hash.
 * Deploy and call helpers over viem against an unlocked dev account of the node.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, http, type Abi, type Address, type Hex } from 'viem';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = path.join(ROOT, 'test/fixtures/contracts');
const CACHE = path.join(ROOT, '.contracts-cache');

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

export type ContractName = 'TestNft' | 'TestMulti' | 'TestToken' | 'TestSoulbound' | 'TestAttestation';

export async function compiledContracts(): Promise<Record<ContractName, Artifact>> {
  const files = readdirSync(SOURCES).filter((f) => f.endsWith('.sol')).sort();
  const sources = Object.fromEntries(files.map((f) => [f, { content: readFileSync(path.join(SOURCES, f), 'utf8') }]));
  const solcVersion = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules/solc/package.json'), 'utf8')) as { version: string }).version;
  const key = createHash('sha256').update(solcVersion).update(JSON.stringify(sources)).digest('hex').slice(0, 16);
  const cached = path.join(CACHE, `${key}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as Record<ContractName, Artifact>;

  // @ts-expect-error solc ships no type declarations
  const solc = (await import('solc')).default as { compile(input: string, options: { import: (p: string) => { contents?: string; error?: string } }): string };
  const input = {
    language: 'Solidity',
    sources,
    settings: { evmVersion: 'cancun', optimizer: { enabled: false }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const findImports = (importPath: string) => {
    const file = path.join(ROOT, 'node_modules', importPath);
    return existsSync(file) ? { contents: readFileSync(file, 'utf8') } : { error: `not found: ${importPath}` };
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts = {} as Record<ContractName, Artifact>;
  for (const file of files) {
    for (const [name, c] of Object.entries(output.contracts[file] ?? {})) {
      artifacts[name as ContractName] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  mkdirSync(CACHE, { recursive: true });
  // Written whole then renamed: test files compiling at once never read half a file.
  const temporary = `${cached}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(artifacts));
  renameSync(temporary, cached);
  return artifacts;
}

/** viem clients on a node whose accounts are unlocked (Hardhat's dev accounts). */
export async function devChain(url: string) {
  // Compiled before the first request: a socket left idle for the compile's few seconds is
  // closed by the node's 5 s keep-alive timeout just as the first deploy reuses it ("other
  // side closed", twice under the full suite's load).
  const artifacts = await compiledContracts();
  const publicClient = createPublicClient({ transport: http(url) });
  const accounts = (await publicClient.request({ method: 'eth_accounts' } as never)) as Address[];
  const wallet = (from: Address) => createWalletClient({ account: from, transport: http(url) });

  async function deploy(name: ContractName, args: unknown[] = [], from = accounts[0]!): Promise<Address> {
    const { abi, bytecode } = artifacts[name];
    const hash = await wallet(from).deployContract({ abi, bytecode, args, account: from, chain: null });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    return receipt.contractAddress!;
  }

  async function send(name: ContractName, address: Address, functionName: string, args: unknown[], from = accounts[0]!) {
    const hash = await wallet(from).writeContract({ abi: artifacts[name].abi, address, functionName, args, account: from, chain: null, gas: 1_000_000n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    return { hash, receipt };
  }

  async function transferEth(from: Address, to: Address, value: bigint) {
    const hash = await wallet(from).sendTransaction({ account: from, to, value, chain: null });
    return publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  }

  return { publicClient, accounts, artifacts, deploy, send, transferEth };
}
