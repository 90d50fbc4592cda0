import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import { startTestApp, TestApp } from '../support/app';
import { seedDocuments } from '../support/seed';
import { ask, chatbotAccount, ChatbotAccount, createKey, eventually } from './support';
import { startTestSmtp, TestSmtp } from './smtp';

const QUESTION = 'When are refunds paid?';
const CHROMIUM = process.env.DOCQA_CHROMIUM ?? '/usr/bin/chromium';

/** A "customer website" on another origin: plain HTTP on 127.0.0.1, one page embedding the widget. */
async function startCustomerSite(): Promise<{
  origin: string;
  setPage(html: string): void;
  close(): Promise<void>;
}> {
  let page = '<!doctype html><p>empty</p>';
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    setPage: (html) => (page = html),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Hostile page styles: the widget's Shadow DOM must keep them out (and its own styles in). */
const CUSTOMER_PAGE = (apiBase: string, key: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<style>
  * { font-family: "Comic Sans MS", cursive !important; }
  .msg, .log, .panel { display: none !important; }
  button { background: rgb(255, 0, 0); }
</style></head>
<body>
  <h1>Shop</h1>
  <button class="launcher" id="page-button">A page button</button>
  <script src="${apiBase}/widget.js" data-key="${key}" data-title="Shop help" data-open="true"></script>
</body></html>`;

describe('Chatbot widget in headless Chromium', () => {
  let app: TestApp;
  let smtp: TestSmtp;
  let site: Awaited<ReturnType<typeof startCustomerSite>>;
  let context: BrowserContext;
  let acct: ChatbotAccount;
  let userDataDir: string;

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(
        `Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set DOCQA_CHROMIUM)`,
      );
    smtp = await startTestSmtp();
    app = await startTestApp({ env: { SMTP_URL: smtp.url }, config: { mail: { outboxPollMs: 200 } } });
    site = await startCustomerSite();
    acct = await chatbotAccount(app, { plan: 'pro', supportEmail: 'help@shop.example.com' });
    await seedDocuments(app, acct.accountId, [
      {
        docSetName: 'help',
        fileName: 'refunds.pdf',
        pages: [
          'Shipping takes three days.',
          'Refunds are paid within 14 days of receiving the returned item.',
        ],
      },
    ]);
    // The local extractive answerer answers this question from page 2 (checked over the API first).
    const { key } = await createKey(app, acct.token);
    const direct = await ask(app, key, { question: QUESTION });
    expect(direct.body.citations).toEqual([
      expect.objectContaining({ fileName: 'refunds.pdf', pageNumber: '2' }),
    ]);
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      // The API's certificate is the test's self-signed one.
      ignoreHTTPSErrors: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 180_000);
  afterAll(async () => {
    await context?.close();
    await site?.close();
    await app?.close();
    await smtp?.stop();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  async function askInWidget(page: Page, question: string): Promise<void> {
    const box = page.getByLabel('Your question');
    await box.fill(question);
    await box.press('Enter');
  }

  it('demo page: asks a question and shows the streamed answer with a citation link', async () => {
    const { key } = await createKey(app, acct.token, { allowed_origin: app.client.baseUrl });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${app.client.baseUrl}/widget/demo?key=${encodeURIComponent(key)}`);
    // data-open: the panel is open and the question box has focus.
    await page.getByRole('dialog', { name: 'Ask the docs' }).waitFor();
    await expectFocused(page, 'Your question');

    const streamed = page.waitForResponse((r) => r.url().endsWith('/api/v1/chatbot/ask_question'));
    await askInWidget(page, QUESTION);
    const response = await streamed;
    expect(response.headers()['content-type']).toMatch(/^text\/event-stream/);

    const link = page.locator('.msg.bot .citations a');
    await link.waitFor();
    expect(await link.textContent()).toBe('refunds.pdf, page 2');
    const href = (await link.getAttribute('href')) as string;
    expect(href).toMatch(new RegExp(`^${app.client.baseUrl}/api/v1/chatbot/files/[^#]+#page=2$`));
    expect(await link.getAttribute('target')).toBe('_blank');
    const answer = page.locator('.msg.bot .text');
    expect(await answer.textContent()).toContain('Refunds are paid within 14 days');
    // The inline marker links to the same file.
    expect(await page.locator('.msg.bot .text sup a').getAttribute('href')).toBe(href);
    // Announced to screen readers: the conversation is an aria-live log.
    const log = page.getByRole('log', { name: 'Conversation' });
    expect(await log.getAttribute('aria-live')).toBe('polite');

    // Escape closes the panel and gives the focus back to the launcher.
    await page.keyboard.press('Escape');
    const launcher = page.getByRole('button', { name: 'Ask the docs' });
    await launcher.waitFor();
    expect(await launcher.getAttribute('aria-expanded')).toBe('false');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a page from a disallowed origin gets the error shown', async () => {
    const { key } = await createKey(app, acct.token, { allowed_origin: 'https://shop.example.com' });
    site.setPage(CUSTOMER_PAGE(app.client.baseUrl, key));
    const page = await context.newPage();
    await page.goto(site.origin);
    await askInWidget(page, QUESTION);
    const alert = page.locator('.msg.error[role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`Origin ${site.origin} is not allowed for this chatbot key`);
    await page.close();
  });

  it('cross-origin embed on an allowed site: answer, isolated styles, and the support form', async () => {
    const { key } = await createKey(app, acct.token, { allowed_origin: site.origin });
    site.setPage(CUSTOMER_PAGE(app.client.baseUrl, key));
    const page = await context.newPage();
    await page.goto(site.origin);
    await askInWidget(page, QUESTION);
    const link = page.locator('.msg.bot .citations a');
    await link.waitFor();
    expect(await link.textContent()).toBe('refunds.pdf, page 2');

    // The page's hostile styles do not reach into the widget, and the widget's do not leak out.
    const widgetFont = await page.locator('.msg.bot').evaluate((e) => getComputedStyle(e).fontFamily);
    expect(widgetFont).not.toContain('Comic Sans');
    expect(await page.locator('.msg.bot').isVisible()).toBe(true);
    const pageButtonBg = await page
      .locator('#page-button')
      .evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(pageButtonBg).toBe('rgb(255, 0, 0)');

    // Contact support from the widget: the message reaches the support inbox.
    await page.getByRole('button', { name: 'Contact support' }).click();
    await page
      .getByLabel('Message to support (at most 2000 characters)')
      .fill('My parcel never arrived (widget test).');
    await page.getByLabel('Your e-mail (optional, so we can reply)').fill('buyer@example.org');
    await page.getByRole('button', { name: 'Send to support' }).click();
    await page.getByText('Your message has been sent to support.').waitFor();
    const mail = await eventually(async () =>
      smtp.received.find((m) => m.text.includes('My parcel never arrived (widget test).')),
    );
    expect(mail.to).toEqual(['help@shop.example.com']);
    expect(mail.headers['reply-to']).toBe('buyer@example.org');
    expect(mail.text).toContain(`Website: ${site.origin}`);
    await page.close();
  });
});

async function expectFocused(page: Page, label: string): Promise<void> {
  const id = await page.getByLabel(label).getAttribute('id');
  const active = await page.evaluate(() => {
    const host = document.querySelector('.docqa-widget-host');
    return host?.shadowRoot?.activeElement?.id ?? null;
  });
  expect(active).toBe(id);
}
