#!/usr/bin/env node
// Checks a commit message against docs/conventions.md ("Commits"): a subject of at most 72
// characters that names the change in the imperative, a blank line, then the why.
//
//   node scripts/lint/commit-msg.js .git/COMMIT_EDITMSG     (as a commit-msg hook)
//   git log -1 --format=%B | node scripts/lint/commit-msg.js -
//   node scripts/lint/commit-msg.js --range main..HEAD      (every commit of a branch)
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');

const SUBJECT_MAX = 72;
// Past tense or third person where the imperative belongs ("Add", not "Added" or "Adds").
const NOT_IMPERATIVE =
  /^(added|adds|fixed|fixes|changed|changes|updated|updates|removed|removes|moved|moves|made|makes|renamed|renames|refactored|refactors|improved|improves|implemented|implements|introduced|introduces|replaced|replaces|splits)\b/i;

/** The problems of one commit message (empty when it follows the convention). */
function commitMessageProblems(message) {
  const lines = message
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.trimEnd());
  while (lines.length && !lines[0]) lines.shift();
  const subject = lines[0] ?? '';
  if (!subject) return ['the subject is empty'];
  const problems = [];
  if ([...subject].length > SUBJECT_MAX)
    problems.push(`the subject has ${[...subject].length} characters (at most ${SUBJECT_MAX})`);
  // Messages git writes itself keep their wording; a merge subject written by hand is still a subject.
  if (/^(Merge|Revert|fixup!|squash!) /.test(subject)) return problems;
  if (subject.endsWith('.')) problems.push('the subject ends with a full stop');
  const firstWord = subject.replace(/^[\w./-]+: /, '');
  if (NOT_IMPERATIVE.test(firstWord))
    problems.push(
      `the subject starts with "${firstWord.split(' ')[0]}": use the imperative ("Add", not "Added")`,
    );
  if (lines.length > 1 && lines[1]) problems.push('the subject is not followed by a blank line');
  return problems;
}

function messagesOfRange(range) {
  const out = execFileSync('git', ['log', '--format=%H%x00%B%x00', range], { encoding: 'utf8' });
  const parts = out.split('\0');
  const messages = [];
  for (let i = 0; i + 1 < parts.length; i += 2)
    messages.push({ id: parts[i].trim().slice(0, 7), text: parts[i + 1] });
  return messages;
}

function main(argv) {
  let messages;
  if (argv[0] === '--range' && argv[1]) messages = messagesOfRange(argv[1]);
  else if (argv[0] === '-') messages = [{ id: 'stdin', text: fs.readFileSync(0, 'utf8') }];
  else if (argv[0]) messages = [{ id: argv[0], text: fs.readFileSync(argv[0], 'utf8') }];
  else {
    console.error('Usage: commit-msg.js <message file> | - | --range <rev-range>');
    return 2;
  }
  let bad = 0;
  for (const m of messages) {
    const problems = commitMessageProblems(m.text);
    if (!problems.length) continue;
    bad++;
    console.error(`${m.id}: ${problems.join('; ')}`);
  }
  return bad ? 1 : 0;
}

module.exports = { commitMessageProblems, SUBJECT_MAX };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
