const { commitMessageProblems } = require('./commit-msg.js');

describe('commit message check (docs/conventions.md "Commits")', () => {
  it('accepts a short imperative subject with the why in the body', () => {
    expect(
      commitMessageProblems('Route plan commands through libs/accounts\n\nThe CLI wrote SQL on accounts.\n'),
    ).toEqual([]);
    expect(commitMessageProblems('search: split the embedded adapter by concern')).toEqual([]);
    expect(commitMessageProblems('Split fusion.ts by what it does')).toEqual([]);
    expect(commitMessageProblems(`${'x'.repeat(72)}`)).toEqual([]);
  });

  it('refuses a subject over 72 characters, counted in code points', () => {
    expect(commitMessageProblems('x'.repeat(73))).toEqual(['the subject has 73 characters (at most 72)']);
    expect(commitMessageProblems('é'.repeat(72))).toEqual([]);
  });

  it('refuses a past-tense or third-person subject, a full stop and a body without a blank line', () => {
    expect(commitMessageProblems('Added a cache.\nbecause it was slow')).toEqual([
      'the subject ends with a full stop',
      'the subject starts with "Added": use the imperative ("Add", not "Added")',
      'the subject is not followed by a blank line',
    ]);
    expect(commitMessageProblems('docs: fixes broken links')).toEqual([
      'the subject starts with "fixes": use the imperative ("Add", not "Added")',
    ]);
  });

  it('skips comment lines and messages git writes itself', () => {
    expect(commitMessageProblems('# Please enter the commit message\n\nAdd a test\n')).toEqual([]);
    expect(commitMessageProblems("Merge branch 'docs' into main.")).toEqual([]);
    expect(commitMessageProblems(`Merge branch 'docs' ${'x'.repeat(80)}`)).toEqual([
      'the subject has 100 characters (at most 72)',
    ]);
    expect(commitMessageProblems('\n\n')).toEqual(['the subject is empty']);
  });
});
