import { execFileSync } from 'node:child_process';

function onPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let updated = false;

/**
 * A command from a Debian package, installed on first use like test/infra installs Postgres
 * (this machine has no Docker engine, but Debian's `docker-compose` validates a compose file
 * without one, and Debian's `haproxy` checks its configuration).
 */
export function ensureDebianCommand(cmd: string, pkg: string = cmd): string {
  if (onPath(cmd)) return cmd;
  if (process.getuid?.() !== 0)
    throw new Error(`${cmd} is missing: install the Debian package (apt-get install ${pkg})`);
  if (!updated) {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    updated = true;
  }
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!onPath(cmd)) throw new Error(`installing ${pkg} did not provide ${cmd}`);
  return cmd;
}
