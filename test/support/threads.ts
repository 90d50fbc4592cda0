import * as fs from 'node:fs';

/** Nice value of one thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
export function niceOf(tid: number): number {
  const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  // fields after the command name, which is in parentheses and may hold spaces
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[16]);
}

/** How many threads of this process run at the given nice value. */
export function threadsAtNice(nice: number): number {
  let n = 0;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      if (niceOf(Number(tid)) === nice) n++;
    } catch {
      // the thread ended while we looked
    }
  }
  return n;
}
