import { Injectable, Module } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { AccountDeletionHook, AccountDeletionHookProvider } from '@docqa/accounts';
import { startTestApp, TestApp } from '../support/app';
import { dbClient, login, register, Registered } from './support';

/** Stands in for the indexing and chatbot modules' hooks: records calls, can be told to fail. */
@AccountDeletionHookProvider()
@Injectable()
class RecordingHook implements AccountDeletionHook {
  readonly calls: number[] = [];
  readonly failFor = new Set<number>();

  async beforeAccountDeleted(accountId: number): Promise<void> {
    this.calls.push(accountId);
    if (this.failFor.has(accountId)) throw new Error('search engine unavailable');
  }
}

@Module({ providers: [RecordingHook] })
class RecordingHookModule {}

async function seedAccountData(db: Client, accountId: number, docset: string): Promise<void> {
  const docId = randomUUID();
  await db.query(
    `INSERT INTO documents (id, account_id, docset_name, file_name, source_type, source_id, status,
       served_generation, served_chunk_count)
     VALUES ($1, $2, $3, 'a.pdf', 'S3', $4, 'COMPLETE', 0, 0)`,
    [docId, accountId, docset, `key-${docId}`],
  );
  await db.query(`INSERT INTO document_pages (document_id, page_number, text) VALUES ($1, 1, 'page text')`, [
    docId,
  ]);
  await db.query(
    `INSERT INTO index_runs (id, account_id, docset_name, workflow_id, source_type, status)
     VALUES ($1, $2, $3, $4, 'S3', 'RUNNING')`,
    [randomUUID(), accountId, docset, `docset-index/${accountId}/${docset}`],
  );
  await db.query(`INSERT INTO chatbot_keys (account_id, key_hash, key_prefix) VALUES ($1, $2, 'cb_xxxxx')`, [
    accountId,
    randomBytes(32).toString('hex'),
  ]);
  await db.query(
    `INSERT INTO mail_outbox (id, account_id, to_address, subject, body) VALUES ($1, $2, 'support@example.com', 's', 'b')`,
    [randomUUID(), accountId],
  );
}

/** Every row, in any table with a user_id/account_id/owner_id column, that points at these ids. */
async function referencingRows(
  db: Client,
  userId: number,
  accountIds: number[],
): Promise<Record<string, number>> {
  const cols = await db.query(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name IN ('user_id', 'account_id', 'owner_id')`,
  );
  const out: Record<string, number> = {};
  for (const { table_name, column_name } of cols.rows) {
    const r = await db.query(
      column_name === 'account_id'
        ? `SELECT count(*)::int AS n FROM ${table_name} WHERE account_id = ANY($1::int[])`
        : `SELECT count(*)::int AS n FROM ${table_name} WHERE ${column_name} = $1`,
      [column_name === 'account_id' ? accountIds : userId],
    );
    if (r.rows[0].n > 0) out[`${table_name}.${column_name}`] = r.rows[0].n;
  }
  const users = await db.query('SELECT count(*)::int AS n FROM users WHERE id = $1', [userId]);
  if (users.rows[0].n) out['users.id'] = users.rows[0].n;
  const accounts = await db.query('SELECT count(*)::int AS n FROM accounts WHERE id = ANY($1::int[])', [
    accountIds,
  ]);
  if (accounts.rows[0].n) out['accounts.id'] = accounts.rows[0].n;
  return out;
}

describe('Account API: DELETE /api/v1/me', () => {
  let app: TestApp;
  let db: Client;
  let hook: RecordingHook;

  beforeAll(async () => {
    app = await startTestApp({ extraModules: [RecordingHookModule] });
    db = await dbClient(app);
    hook = app.api.app.get(RecordingHook);
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  async function personalAccount(u: Registered): Promise<number> {
    const r = await db.query('SELECT id FROM accounts WHERE owner_id = $1 AND personal', [u.id]);
    return r.rows[0].id;
  }

  it('removes the user, their solely owned accounts and every row of them; the token stops working', async () => {
    const alice = await register(app, { name: 'Alice' });
    const bob = await register(app, { name: 'Bob' });
    const alicePersonal = await personalAccount(alice);
    const bobPersonal = await personalAccount(bob);

    // Alice: a team account of her own, one she owns but shares with Bob, one of Bob's she joined.
    const team = (await app.client.post('/api/v1/accounts', { name: 'Alice team' }, { token: alice.token }))
      .body.id;
    const sharedOwned = (
      await app.client.post('/api/v1/accounts', { name: 'Shared' }, { token: alice.token })
    ).body.id;
    await db.query(`INSERT INTO account_users (account_id, user_id, role) VALUES ($1, $2, 'member')`, [
      sharedOwned,
      bob.id,
    ]);
    const bobTeam = (await app.client.post('/api/v1/accounts', { name: 'Bob team' }, { token: bob.token }))
      .body.id;
    await db.query(`INSERT INTO account_users (account_id, user_id, role) VALUES ($1, $2, 'member')`, [
      bobTeam,
      alice.id,
    ]);
    for (const [id, docset] of [
      [alicePersonal, 'handbook'],
      [team, 'team-docs'],
      [sharedOwned, 'shared-docs'],
      [bobPersonal, 'handbook'],
      [bobTeam, 'bob-docs'],
    ] as const) {
      await seedAccountData(db, id, docset);
    }
    // More of Alice's rows: an extra token, two-factor enrolment, failed-login counters.
    const extra = await app.client.post('/api/v1/api_tokens', { name: 'extra' }, { token: alice.token });
    await app.client.post('/api/v1/two_factor', undefined, { token: alice.token });
    await login(app, alice.email, 'wrong-password');
    const throttleRows = await db.query(
      `SELECT count(*)::int AS n FROM rate_limit_windows WHERE key LIKE 'login:email:%'`,
    );
    expect(throttleRows.rows[0].n).toBeGreaterThan(0);

    hook.calls.splice(0);
    const res = await app.client.delete('/api/v1/me', undefined, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});

    // The hook ran for exactly the accounts that go with her.
    expect(hook.calls.sort()).toEqual([alicePersonal, team].sort());

    // Nothing of hers, or of her solely owned accounts, is left in any table.
    expect(await referencingRows(db, alice.id, [alicePersonal, team])).toEqual({});
    const pages = await db.query(
      `SELECT count(*)::int AS n FROM document_pages p JOIN documents d ON d.id = p.document_id
        WHERE d.account_id = ANY($1::int[])`,
      [[alicePersonal, team]],
    );
    expect(pages.rows[0].n).toBe(0);
    const throttleAfter = await db.query(
      `SELECT count(*)::int AS n FROM rate_limit_windows WHERE key LIKE 'login:email:%'`,
    );
    expect(throttleAfter.rows[0].n).toBe(0);

    // Her credentials stop working.
    expect((await app.client.get('/api/v1/me', { token: alice.token })).status).toBe(401);
    expect((await app.client.get('/api/v1/accounts', { token: extra.body.token })).status).toBe(401);
    expect((await login(app, alice.email, alice.password)).status).toBe(401);

    // Shared accounts stay: the one she owned passes to Bob; Bob's data is untouched.
    const shared = await db.query('SELECT owner_id FROM accounts WHERE id = $1', [sharedOwned]);
    expect(shared.rows[0].owner_id).toBe(bob.id);
    const bobMembership = await db.query(
      'SELECT role FROM account_users WHERE account_id = $1 AND user_id = $2',
      [sharedOwned, bob.id],
    );
    expect(bobMembership.rows[0].role).toBe('owner');
    for (const id of [sharedOwned, bobPersonal, bobTeam]) {
      const docs = await db.query('SELECT count(*)::int AS n FROM documents WHERE account_id = $1', [id]);
      expect(docs.rows[0].n).toBe(1);
    }
    const bobAccounts = await app.client.get('/api/v1/accounts', { token: bob.token });
    expect(bobAccounts.body.map((a: { id: number }) => a.id).sort()).toEqual(
      [bobPersonal, sharedOwned, bobTeam].sort(),
    );
    for (const a of bobAccounts.body) {
      expect(a.account_users.map((m: { user_id: number }) => m.user_id)).toEqual([bob.id]);
    }

    // The address can be registered again.
    const again = await app.client.post('/api/v1/users', {
      user: { email: alice.email, password: 'password-2', password_confirmation: 'password-2' },
    });
    expect(again.status).toBe(200);
  });

  it('deletes nothing when a deletion hook fails, so the request can be retried', async () => {
    const u = await register(app);
    const personal = await personalAccount(u);
    await seedAccountData(db, personal, 'docs');
    hook.failFor.add(personal);
    const failed = await app.client.delete('/api/v1/me', undefined, { token: u.token });
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ error: expect.stringContaining('nothing was deleted') });
    expect((await app.client.get('/api/v1/me', { token: u.token })).status).toBe(200);
    const docs = await db.query('SELECT count(*)::int AS n FROM documents WHERE account_id = $1', [personal]);
    expect(docs.rows[0].n).toBe(1);

    hook.failFor.clear();
    expect((await app.client.delete('/api/v1/me', undefined, { token: u.token })).status).toBe(200);
    expect(await referencingRows(db, u.id, [personal])).toEqual({});
  });

  it("removes the account's support mail from the chatbot's outbox (the chatbot's deletion hook)", async () => {
    const u = await register(app);
    const other = await register(app);
    const personal = await personalAccount(u);
    const kept = await personalAccount(other);
    const outbox = async (accountId: number, status: 'PENDING' | 'SENT') => {
      const id = randomUUID();
      await db.query(
        `INSERT INTO mail_outbox (id, account_id, to_address, subject, body, status, sent_at)
         VALUES ($1, $2, 'support@example.com', 's', 'b', $3, CASE WHEN $3 = 'SENT' THEN now() END)`,
        [id, accountId, status],
      );
      return id;
    };
    const gone = [await outbox(personal, 'PENDING'), await outbox(personal, 'SENT')];
    const stays = await outbox(kept, 'PENDING');

    expect((await app.client.delete('/api/v1/me', undefined, { token: u.token })).status).toBe(200);

    // The foreign key is ON DELETE SET NULL: without the hook the rows would stay, with no account.
    const rows = await db.query('SELECT id, account_id FROM mail_outbox WHERE id = ANY($1::uuid[])', [
      [...gone, stays],
    ]);
    expect(rows.rows).toEqual([{ id: stays, account_id: kept }]);
  });

  it('needs a token', async () => {
    expect((await app.client.delete('/api/v1/me')).status).toBe(401);
  });
});
