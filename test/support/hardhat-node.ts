/**
 * A real local EVM node for chain tests and the chain benchmark: Hardhat 2's node (EDR),
 * started on a free port with test/fixtures/hardhat/hardhat.config.cjs and stopped after.
 * Its 20 dev accounts are unlocked, so transactions are sent with eth_sendTransaction.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const HARDHAT_CLI = fileURLToPath(new URL('../../node_modules/hardhat/internal/cli/cli.js', import.meta.url));
const CONFIG = fileURLToPath(new URL('../fixtures/hardhat/hardhat.config.cjs', import.meta.url));

export interface HardhatNode {
  url: string;
  port: number;
  /** JSON-RPC call to the node (evm_snapshot, evm_revert, evm_mine, ...). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function startHardhatNode(): Promise<HardhatNode> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [HARDHAT_CLI, '--config', CONFIG, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += String(d).slice(0, 2000)));
  child.stderr!.on('data', (d) => (output += String(d)));
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited: ${output}`);
    try {
      await rpc('eth_chainId');
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`hardhat node did not answer within 30 s: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    port,
    rpc,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
