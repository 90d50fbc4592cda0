import * as fs from 'node:fs';
import * as path from 'node:path';

/** The first `name` in the directories of `dirs` (default: PATH), or null. */
export function findOnPath(
  name: string,
  dirs = (process.env.PATH ?? '').split(path.delimiter),
): string | null {
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** util-linux's setpriv, where it is installed (Debian and most Linux distributions ship it). */
function findSetpriv(): string | null {
  if (process.platform !== 'linux') return null;
  return findOnPath('setpriv', ['/usr/bin', '/bin', ...(process.env.PATH ?? '').split(path.delimiter)]);
}

/**
 * The command line that runs `file args` as a child that ends with this process: on Linux,
 * through `setpriv --pdeathsig TERM`, which sets the kernel's parent-death signal and then execs
 * the command (same pid), so a server the product spawned (the Temporal dev server) gets SIGTERM
 * even when the product is killed by a signal or crashes and cannot stop it; otherwise the
 * command as it is (stopped on a clean exit only).
 */
export function parentBound(file: string, args: string[]): { file: string; args: string[] } {
  const setpriv = findSetpriv();
  return setpriv ? { file: setpriv, args: ['--pdeathsig', 'TERM', '--', file, ...args] } : { file, args };
}
