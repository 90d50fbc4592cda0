// Preload (`node -r test/support/offline.js`) that takes the network away from a process and from
// every worker thread it starts (Node runs -r preloads in workers too): DNS lookups, sockets and
// fetch throw, and each attempt, like each thread the guard is installed in, is appended to the
// file named by DOCQA_OFFLINE_LOG so a test can read what was tried.
const fs = require('node:fs');
const { isMainThread } = require('node:worker_threads');

const log = process.env.DOCQA_OFFLINE_LOG;
const note = (line) => log && fs.appendFileSync(log, `${line}\n`);
note(`guard ${isMainThread ? 'main' : 'worker'}`);

function refuse(what) {
  return function () {
    note(`attempt ${what}`);
    throw new Error(`network access is disabled in this test (${what})`);
  };
}

const dns = require('node:dns');
dns.lookup = refuse('dns.lookup');
dns.resolve = refuse('dns.resolve');
dns.promises.lookup = refuse('dns.promises.lookup');
const net = require('node:net');
net.Socket.prototype.connect = refuse('net.connect');
globalThis.fetch = async (input) =>
  refuse(`fetch ${String(input && input.url ? input.url : input).slice(0, 200)}`)();
