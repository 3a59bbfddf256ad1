/** Runs `atelier start` as a user would: a real child process, read until it says it is ready. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const CLI = path.resolve('bin/atelier.js');

export interface StartedCli {
  child: ChildProcess;
  output: string;
}

const running = new Set<ChildProcess>();

/**
 * Starts `atelier start` with a clean environment (no DATABASE_URL, API_KEY or chain settings
 * leaking in from the test run) plus `env`; resolves once the banner is printed.
 */
export function startCli(env: Record<string, string>, timeoutMs = 75_000): Promise<StartedCli> {
  return new Promise((resolve, reject) => {
    const { DATABASE_URL: _d, API_KEY: _k, NFT_RPC_URL: _r, NFT_DEPLOYER_PRIVATE_KEY: _p, ...base } = process.env;
    const child = spawn(process.execPath, [CLI, 'start'], {
      env: { ...base, DEV_CHAIN: 'false', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let output = '';
    const timer = setTimeout(() => reject(new Error(`start timed out:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('send it as')) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
}

/** SIGTERM and wait: the platform shuts down cleanly (anvil writes its state). */
export async function stopCli(child: ChildProcess) {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Stops every child still running (for after() hooks). */
export async function stopAllClis() {
  for (const c of [...running]) await stopCli(c);
}
