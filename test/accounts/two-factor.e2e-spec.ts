import type { Client } from 'pg';
import { startTestApp, TestApp } from '../support/app';
import { dbClient, login, register, totpCode } from './support';

describe('Account API: two-factor authentication (extension)', () => {
  let app: TestApp;
  let db: Client;

  beforeAll(async () => {
    app = await startTestApp();
    db = await dbClient(app);
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  it('enrols, confirms, then requires a valid code at login', async () => {
    const u = await register(app);
    const enrol = await app.client.post('/api/v1/two_factor', undefined, { token: u.token });
    expect(enrol.status).toBe(200);
    expect(enrol.body).toEqual({
      otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\/DocQA:/),
      secret: expect.any(String),
    });
    const secret: string = enrol.body.secret;
    expect(enrol.body.otpauth_uri).toContain(`secret=${secret}`);
    expect(enrol.body.otpauth_uri).toContain(encodeURIComponent(u.email));
    // The secret is stored encrypted.
    const row = await db.query('SELECT otp_secret_enc, otp_enabled FROM users WHERE id = $1', [u.id]);
    expect(row.rows[0].otp_enabled).toBe(false);
    expect(row.rows[0].otp_secret_enc).not.toContain(secret);

    // Not on until confirmed.
    expect((await login(app, u.email, u.password)).status).toBe(200);

    const wrongConfirm = await app.client.post(
      '/api/v1/two_factor/confirm',
      { otp_attempt: '000000' },
      { token: u.token },
    );
    expect(wrongConfirm.status).toBe(422);
    expect(wrongConfirm.body.errors).toEqual({ otp_attempt: ['is invalid'] });
    const blankConfirm = await app.client.post('/api/v1/two_factor/confirm', {}, { token: u.token });
    expect(blankConfirm.status).toBe(422);
    const confirm = await app.client.post(
      '/api/v1/two_factor/confirm',
      { otp_attempt: totpCode(secret) },
      { token: u.token },
    );
    expect(confirm.status).toBe(200);
    expect(confirm.body).toEqual({ success: true, two_factor_enabled: true });
    expect((await app.client.post('/api/v1/two_factor', undefined, { token: u.token })).status).toBe(409);

    const noCode = await login(app, u.email, u.password);
    expect(noCode.status).toBe(422);
    expect(noCode.body).toEqual({ error: 'otp_attempt_required' });

    const wrongCode = await login(app, u.email, u.password, totpCode(secret, 5));
    expect(wrongCode.status).toBe(401);
    expect(typeof wrongCode.body.error).toBe('string');

    // A wrong password with a code still gets the password error (no hint that the code mattered).
    const wrongPassword = await login(app, u.email, 'not-the-password', totpCode(secret, 1));
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body).toEqual({ error: 'Invalid email or password.' });

    const code = totpCode(secret, 1);
    const ok = await login(app, u.email, u.password, code);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ token: u.token });

    // A code is accepted once (replay), and older steps too are refused after a newer one.
    const replay = await login(app, u.email, u.password, code);
    expect(replay.status).toBe(401);
    const older = await login(app, u.email, u.password, totpCode(secret, 0));
    expect(older.status).toBe(401);
  });

  it('disables with the password or a code; wrong ones are 422', async () => {
    const u = await register(app);
    const { body } = await app.client.post('/api/v1/two_factor', undefined, { token: u.token });
    const secret: string = body.secret;
    // Confirm with the previous step's code so the current one is free for later.
    const confirmed = await app.client.post(
      '/api/v1/two_factor/confirm',
      { otp_attempt: totpCode(secret, -1) },
      { token: u.token },
    );
    expect(confirmed.status).toBe(200);

    const nothing = await app.client.delete('/api/v1/two_factor', {}, { token: u.token });
    expect(nothing.status).toBe(422);
    const wrongPw = await app.client.delete(
      '/api/v1/two_factor',
      { password: 'not-the-password' },
      { token: u.token },
    );
    expect(wrongPw.status).toBe(422);
    expect(wrongPw.body.errors).toEqual({ password: ['is invalid'] });
    const wrongCode = await app.client.delete(
      '/api/v1/two_factor',
      { otp_attempt: '000000' },
      { token: u.token },
    );
    expect(wrongCode.status).toBe(422);
    expect(wrongCode.body.errors).toEqual({ otp_attempt: ['is invalid'] });

    const off = await app.client.delete('/api/v1/two_factor', { password: u.password }, { token: u.token });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ success: true, two_factor_enabled: false });
    expect((await login(app, u.email, u.password)).status).toBe(200);
    expect(
      (await app.client.delete('/api/v1/two_factor', { password: u.password }, { token: u.token })).status,
    ).toBe(409);

    // Re-enrol and disable with a code.
    const again = await app.client.post('/api/v1/two_factor', undefined, { token: u.token });
    expect(again.body.secret).not.toBe(secret);
    await app.client.post(
      '/api/v1/two_factor/confirm',
      { otp_attempt: totpCode(again.body.secret) },
      { token: u.token },
    );
    const offByCode = await app.client.delete(
      '/api/v1/two_factor',
      { otp_attempt: totpCode(again.body.secret, 1) },
      { token: u.token },
    );
    expect(offByCode.status).toBe(200);
    const row = await db.query('SELECT otp_secret_enc, otp_enabled FROM users WHERE id = $1', [u.id]);
    expect(row.rows[0]).toEqual({ otp_secret_enc: null, otp_enabled: false });
  });

  it('confirm without enrolment is 422; the endpoints need a token', async () => {
    const u = await register(app);
    const res = await app.client.post(
      '/api/v1/two_factor/confirm',
      { otp_attempt: '123456' },
      { token: u.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.otp_attempt[0]).toContain('no pending enrolment');
    expect((await app.client.post('/api/v1/two_factor')).status).toBe(401);
    expect((await app.client.post('/api/v1/two_factor/confirm', { otp_attempt: '1' })).status).toBe(401);
    expect((await app.client.delete('/api/v1/two_factor', { password: 'x' })).status).toBe(401);
  });

  it('counts wrong codes towards login throttling', async () => {
    const u = await register(app);
    const { body } = await app.client.post('/api/v1/two_factor', undefined, { token: u.token });
    await app.client.post(
      '/api/v1/two_factor/confirm',
      { otp_attempt: totpCode(body.secret) },
      { token: u.token },
    );
    for (let i = 0; i < 10; i++) {
      expect((await login(app, u.email, u.password, '000000')).status).toBe(401);
    }
    const throttled = await login(app, u.email, u.password, totpCode(body.secret, 1));
    expect(throttled.status).toBe(429);
  });
});
